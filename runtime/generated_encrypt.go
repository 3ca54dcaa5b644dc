package runtime

import (
	"database/sql"
	"strconv"
)

// DecryptString replaces *s, the cipher text scanned from the cipher column
// of encrypted logic column column, with its plain text decrypted by e. It
// is what generated code calls after scanning a result column whose Plan
// column names a decrypting encryptor (ShardingSphere EncryptMergedResult:
// the logic column reads the cipher column and decrypts it). On error *s is
// unchanged and the error names the column, never the key or the value.
func DecryptString(e Encryptor, column string, s *string) error {
	plain, err := e.Decrypt(*s)
	if err != nil {
		return decryptError(column, err)
	}
	*s = plain
	return nil
}

// DecryptNullString is DecryptString for a nullable logic column: a NULL
// cipher column (Valid false) stays NULL, as in ShardingSphere (whose
// decrypt of null is null, never the text "null").
func DecryptNullString(e Encryptor, column string, s *sql.NullString) error {
	if !s.Valid {
		return nil
	}
	return DecryptString(e, column, &s.String)
}

// decryptError wraps err with the logic column it was read for.
func decryptError(column string, err error) error {
	return &DecryptError{Column: column, Err: err}
}

// DecryptError is the error of DecryptString and DecryptNullString: the
// logic column (e.g. "phone") whose cipher text could not be decrypted, and
// the encryptor's error (errors.Is(err, ErrNotDecryptable) for a one-way
// encryptor, else a malformed cipher text or a wrong key).
type DecryptError struct {
	Column string
	Err    error
}

// Error reads `decrypt column "phone": AES decrypt: ...`.
func (e *DecryptError) Error() string {
	return "decrypt column " + strconv.Quote(e.Column) + ": " + e.Err.Error()
}

// Unwrap returns the encryptor's error.
func (e *DecryptError) Unwrap() error { return e.Err }
