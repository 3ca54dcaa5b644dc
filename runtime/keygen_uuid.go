package runtime

import "math/rand/v2"

// uuidGenerator is ShardingSphere's UUID key generator
// (UUIDKeyGenerateAlgorithm): Java's new UUID(msb, lsb).toString() with the
// dashes removed, where msb and lsb are two random 64-bit values. The result
// is 32 lowercase hex digits, msb first, each half zero-padded to 16 digits.
// It is not an RFC 4122 version 4 UUID: the version and variant nibbles are
// random too.
//
// Randomness: ShardingSphere uses ThreadLocalRandom, a fast generator that is
// not meant for secrets. shardgen uses math/rand/v2's top-level Uint64, the
// Go counterpart: per-thread ChaCha8 state seeded by the runtime from the
// operating system, lock-free, no system call and no error path, so Generate
// cannot fail. crypto/rand would add a system call per key for a property
// (unpredictability) that the keys never promised; do not use UUID keys as
// secrets or tokens.
//
// Source: UUIDKeyGenerateAlgorithm and
// https://shardingsphere.apache.org/document/current/en/user-manual/common-config/builtin-algorithm/keygen/
type uuidGenerator struct{}

var _ KeyGenerator = uuidGenerator{}

// newUUID configures a UUID generator. It has no props; any given are ignored,
// as ShardingSphere does.
func newUUID(Props) (KeyGenerator, error) { return uuidGenerator{}, nil }

// Type returns "UUID".
func (uuidGenerator) Type() string { return "UUID" }

// Generate returns a KindString Value of 32 lowercase hex digits. It never
// fails; it allocates the one 32-byte string.
func (uuidGenerator) Generate() (Value, error) {
	return Value{Kind: KindString, Str: uuidText(rand.Uint64(), rand.Uint64())}, nil
}

// uuidText formats msb and lsb as Java's UUID.toString without dashes.
func uuidText(msb, lsb uint64) string {
	const digits = "0123456789abcdef"
	var b [32]byte
	for i := 15; i >= 0; i-- {
		b[i] = digits[msb&0xf]
		b[16+i] = digits[lsb&0xf]
		msb >>= 4
		lsb >>= 4
	}
	return string(b[:])
}
