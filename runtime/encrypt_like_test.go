package runtime

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCharDigestLike(t *testing.T) {
	for _, tc := range []struct {
		name  string
		props Props
		plain any
		want  string
	}{
		// spec §5.C
		{"spec example", nil, "test_%", "udtu_%"},
		// ShardingSphere CharDigestLikeEncryptAlgorithmTest
		{"SS english", nil, "1234567890%abcdefghijklmnopqrstuvwxyz%ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0145458981%`adedehihilmlmpqpqtutuxyxy%@ADEDEHIHILMLMPQPQTUTUXYXY"},
		{"SS wildcards", nil, "_1234__5678__", "_0145__4589__"},
		{"SS korean", Props{"dict": "한국어시험", "start": "44032"}, "한국", "각가"},
		// a mapped '%' keeps the original: '$'+1 = '%', ('&'+1) & mask = '%';
		// '^'+1 is '_' but the default mask clears bit 1: ']'
		{"mapped wildcard", nil, "$&^a", "$&]`"},
		{"mapped underscore", Props{"mask": "65535"}, "^", "^"},
		// 128..255: the default mask clears bit 7 ('é' 233+1=234 & 0xF7D = 'h')
		{"latin-1", nil, "é", "h"},
		// not in the (empty) dict: ((c + 1) & 0xF7D) + 0x4E00
		{"chinese no dict", nil, "中", string(rune(((0x4e2d + 1) & 0xf7d) + 0x4e00))},
		// in the dict: ((index + 1) & mask) + start
		{"chinese dict", Props{"dict": "的一是中"}, "中一x", string(rune(((3+1)&0xf7d)+0x4e00)) + string(rune(((1+1)&0xf7d)+0x4e00)) + "y"},
		// a repeated dict character keeps its last index (HashMap.put)
		{"dict duplicate", Props{"dict": "中的中"}, "中", string(rune(((2 + 1) & 0xf7d) + 0x4e00))},
		// outside the BMP: two UTF-16 units, each mapped
		{"emoji", nil, "😀", string(rune(((0xd83d+1)&0xf7d)+0x4e00)) + string(rune(((0xde00+1)&0xf7d)+0x4e00))},
		// props: delta 2, mask 0xFFFF, start 0
		{"props", Props{"delta": "2", "mask": "65535", "start": "0"}, "ab中", "cd" + string(rune(0x4e2d+2))},
		{"negative delta", Props{"delta": "-1"}, "b", "a"},
		{"int64", nil, int64(1234), "0145"},
		{"empty", nil, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := NewEncryptor("CHAR_DIGEST_LIKE", tc.props)
			require.NoError(t, err)
			got, err := e.Encrypt(tc.plain)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestCharDigestLikeSurrogates(t *testing.T) {
	// start 0xD800 - 0x100 puts the mapped units of 0x100.. at surrogates.
	e, err := NewEncryptor("CHAR_DIGEST_LIKE", Props{"delta": "0", "mask": "65535", "start": "0"})
	require.NoError(t, err)
	// identity mapping: a pair stays a pair
	require.Equal(t, "😀", e.EncryptText("😀"))
	s, err := NewEncryptor("CHAR_DIGEST_LIKE", Props{"delta": "0", "mask": "65535", "start": "55040", "dict": "\u0101"})
	require.NoError(t, err)
	// 'ā' is dict index 0 → 0 + 0xD700 = U+D700 (not a surrogate); 'Ā' (0x100) → 0x100 + 0xD700 = 0xD800, a lone high surrogate
	require.Equal(t, "\ud700?", s.EncryptText("āĀ"))
}

func TestCharDigestLikeDefaultDict(t *testing.T) {
	e, err := NewEncryptor("CHAR_DIGEST_LIKE", nil)
	require.NoError(t, err)
	require.True(t, e.(*CharDigestLikeEncryptor).DefaultDict())
	e, err = NewEncryptor("CHAR_DIGEST_LIKE", Props{"dict": ""})
	require.NoError(t, err)
	require.True(t, e.(*CharDigestLikeEncryptor).DefaultDict())
	e, err = NewEncryptor("CHAR_DIGEST_LIKE", Props{"dict": "的"})
	require.NoError(t, err)
	require.False(t, e.(*CharDigestLikeEncryptor).DefaultDict())
}

func BenchmarkCharDigestLike(b *testing.B) {
	e, err := NewEncryptor("CHAR_DIGEST_LIKE", Props{"dict": "的一是在不了有和人这中大为上个国"})
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		_ = e.EncryptText("%中国abc_")
	}
}
