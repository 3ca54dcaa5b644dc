package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// encryptCmd runs `shardgen encrypt args...` and returns exit code, stdout
// and stderr.
func encryptCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"encrypt"}, args...), nil, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

const encryptRules54 = `dataSources:
  ds_0: {url: "jdbc:mysql://h:3306/d0"}
rules:
- !ENCRYPT
  tables:
    t_user:
      columns:
        username:
          cipher: {name: username_cipher, encryptorName: aes_enc}
          assistedQuery: {name: username_assisted, encryptorName: md5_enc}
          likeQuery: {name: username_like, encryptorName: like_enc}
        phone:
          cipher: {name: phone_cipher, encryptorName: aes_env}
    t_order:
      columns:
        note:
          cipher: {name: note_cipher, encryptorName: aes_enc}
          likeQuery: {name: note_like, encryptorName: like_default}
  encryptors:
    aes_enc: {type: AES, props: {aes-key-value: 123456abc, digest-algorithm-name: SHA-1}}
    aes_env: {type: AES, props: {aes-key-value: "${env:SHARDGEN_TEST_CLI_KEY}"}}
    md5_enc: {type: MD5, props: {salt: "123456"}}
    like_enc: {type: CHAR_DIGEST_LIKE, props: {dict: "的一是中"}}
    like_default: {type: CHAR_DIGEST_LIKE}
`

const encryptRules51 = `dataSources:
  ds_0: {url: "jdbc:mysql://h:3306/d0"}
rules:
- !ENCRYPT
  encryptors:
    aes_encryptor:
      type: AES
      props:
        aes-key-value: 123456abc
    md5_encryptor:
      type: MD5
  tables:
    t_user:
      columns:
        user_name:
          plainColumn: user_name_plain
          cipherColumn: user_name_cipher
          encryptorName: aes_encryptor
        pwd:
          cipherColumn: pwd_cipher
          assistedQueryColumn: pwd_assisted
          encryptorName: md5_encryptor
`

func TestEncryptCommand(t *testing.T) {
	rules54 := writeFile(t, "rules.yaml", encryptRules54)
	rules51 := writeFile(t, "rules51.yaml", encryptRules51)
	t.Setenv("SHARDGEN_TEST_CLI_KEY", "123456abc")
	for _, tc := range []struct {
		name   string
		args   []string
		stdout string
		stderr string
	}{
		{
			name: "5.4 cipher, assisted and like, names case-insensitive",
			args: []string{"-c", rules54, "--table", "T_User", "--column", "USERNAME", "hello", "13800138000", "test_%", "中国"},
			stdout: "hello\tcipher=CxlvIvN1rRziSGk+hcqy6w==\tassisted=eeb9bad681184779aa6570e402d6ef6c\tlike=idmmp\n" +
				"13800138000\tcipher=U08fr/IA0IKZ+RG/NurTiA==\tassisted=e7d341c6253c8c3f0d15517da52b1466\tlike=04911049111\n" +
				"test_%\tcipher=KaVz/Wosfe2jBxUz+BLtow==\tassisted=3d835bcc0442e8daf9a10ef56ebf17f9\tlike=udtu_%\n" +
				"中国\tcipher=Cq1OgSBTLBEeJSSdURJQvA==\tassisted=d635710ad97cd94e3635799b31ccf9db\tlike=丄呼\n",
		},
		{
			name:   "key from the environment",
			args:   []string{"-c", rules54, "--table", "t_user", "--column", "phone", "hello"},
			stdout: "hello\tcipher=CxlvIvN1rRziSGk+hcqy6w==\n",
		},
		{
			name:   "control characters are quoted",
			args:   []string{"-c", rules54, "--table", "t_user", "--column", "phone", "a\tb", `"q"`, ""},
			stdout: "\"a\\tb\"\tcipher=76qzNX9ybi61Y3UiKuiDMw==\n\"\\\"q\\\"\"\tcipher=" + aesHelloCipher(t, `"q"`) + "\n\tcipher=CrZkuFZyp9Dz8RCciozH6A==\n",
		},
		{
			name:   "like without dict warns",
			args:   []string{"-c", rules54, "--table", "t_order", "--column", "note", "ab"},
			stdout: "ab\tcipher=" + aesHelloCipher(t, "ab") + "\tlike=`a\n",
			stderr: `shardgen encrypt: warning: encryptor "like_default" (CHAR_DIGEST_LIKE) has no dict prop; ShardingSphere then uses its built-in dictionary, which shardgen does not ship, so its characters encrypt differently: give dict for byte compatibility` + "\n",
		},
		{
			name:   "5.1 plain column",
			args:   []string{"-c", rules51, "--table", "t_user", "--column", "user_name", "hello"},
			stdout: "hello\tcipher=CxlvIvN1rRziSGk+hcqy6w==\tplain=hello\n",
		},
		{
			name:   "5.1 MD5 cipher with assisted query",
			args:   []string{"-c", rules51, "--table", "t_user", "--column", "pwd", "hello"},
			stdout: "hello\tcipher=5d41402abc4b2a76b9719d911017c592\tassisted=5d41402abc4b2a76b9719d911017c592\n",
		},
		{
			name:   "decrypt",
			args:   []string{"-c", rules54, "--table", "t_user", "--column", "username", "--decrypt", "CxlvIvN1rRziSGk+hcqy6w==", " U08fr/IA0IKZ+RG/NurTiA== ", "76qzNX9ybi61Y3UiKuiDMw=="},
			stdout: "hello\n13800138000\n\"a\\tb\"\n",
		},
		{
			name:   "-- ends the flags",
			args:   []string{"-c", rules54, "--table", "t_user", "--column", "phone", "--", "-x"},
			stdout: "-x\tcipher=" + aesHelloCipher(t, "-x") + "\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := encryptCmd(t, tc.args...)
			require.Equal(t, 0, code, errOut)
			require.Equal(t, tc.stdout, out)
			require.Equal(t, tc.stderr, errOut)
		})
	}
}

// aesHelloCipher is the cipher of plain under key 123456abc (SHA-1), taken
// from the CLI itself; the vectors are checked in runtime.
func aesHelloCipher(t *testing.T, plain string) string {
	t.Helper()
	rules := writeFile(t, "aes.yaml", encryptRules51)
	code, out, errOut := encryptCmd(t, "-c", rules, "--table", "t_user", "--column", "user_name", "--", plain)
	require.Equal(t, 0, code, errOut)
	_, rest, _ := bytes.Cut([]byte(out), []byte("\tcipher="))
	cipher, _, _ := bytes.Cut(rest, []byte("\t"))
	return string(cipher)
}

func TestEncryptCommandErrors(t *testing.T) {
	rules54 := writeFile(t, "rules.yaml", encryptRules54)
	rules51 := writeFile(t, "rules51.yaml", encryptRules51)
	noEncrypt := writeFile(t, "plain.yaml", "dataSources:\n  ds_0: {url: \"jdbc:mysql://h:3306/d0\"}\n")
	badRules := writeFile(t, "bad.yaml", `dataSources:
  ds_0: {url: "jdbc:mysql://h:3306/d0"}
rules:
- !ENCRYPT
  tables:
    t_user:
      columns:
        username:
          cipher: {name: username_cipher, encryptorName: aes_enc}
  encryptors:
    aes_enc: {type: AES}
`)
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{
			name:   "no !ENCRYPT rule",
			args:   []string{"-c", noEncrypt, "--table", "t_user", "--column", "username", "x"},
			code:   1,
			stderr: "shardgen encrypt: " + noEncrypt + " has no !ENCRYPT rule\n",
		},
		{
			name:   "unknown table",
			args:   []string{"-c", rules54, "--table", "t_x", "--column", "username", "x"},
			code:   1,
			stderr: `shardgen encrypt: table "t_x" has no encrypt rule in ` + rules54 + " (encrypted tables: t_order, t_user)\n",
		},
		{
			name:   "unknown column",
			args:   []string{"-c", rules54, "--table", "t_user", "--column", "pwd", "x"},
			code:   1,
			stderr: `shardgen encrypt: column "pwd" of table "t_user" is not encrypted (encrypted columns: phone, username)` + "\n",
		},
		{
			name:   "unset key variable",
			args:   []string{"-c", rules54, "--table", "t_user", "--column", "phone", "x"},
			code:   1,
			stderr: `shardgen encrypt: encryptor "aes_env" (AES): property "aes-key-value" cannot be expanded: ${env:SHARDGEN_TEST_CLI_KEY}: environment variable "SHARDGEN_TEST_CLI_KEY" is not set and has no default` + "\n",
		},
		{
			name:   "rules with errors",
			args:   []string{"-c", badRules, "--table", "t_user", "--column", "username", "x"},
			code:   1,
			stderr: badRules + `:11:21: encryptor "aes_enc": AES needs props aes-key-value` + "\n",
		},
		{
			name:   "decrypt with MD5 cipher",
			args:   []string{"-c", rules51, "--table", "t_user", "--column", "pwd", "--decrypt", "5d41402abc4b2a76b9719d911017c592"},
			code:   1,
			stderr: `shardgen encrypt: --decrypt: the cipher encryptor "md5_encryptor" of column "pwd" is MD5, which cannot decrypt` + "\n",
		},
		{
			name:   "decrypt bad values: the good ones are still printed",
			args:   []string{"-c", rules54, "--table", "t_user", "--column", "username", "--decrypt", "bad", "CxlvIvN1rRziSGk+hcqy6w==", "a*b="},
			code:   1,
			stdout: "hello\n",
			stderr: "shardgen encrypt: \"bad\": AES decrypt: cipher text is 2 bytes, not a multiple of 16\n" +
				"shardgen encrypt: \"a*b=\": AES decrypt: cipher text is not Base64: bad input at byte 1\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := encryptCmd(t, tc.args...)
			require.Equal(t, tc.code, code, errOut)
			require.Equal(t, tc.stdout, out)
			require.Equal(t, tc.stderr, errOut)
		})
	}
}

func TestEncryptCommandUsage(t *testing.T) {
	rules := writeFile(t, "rules.yaml", encryptRules54)
	const usageText = "usage: shardgen encrypt -c rules.yaml --table T --column C [--decrypt] VALUE...\n"
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"no flags", nil, 2},
		{"no values", []string{"-c", rules, "--table", "t_user", "--column", "username"}, 2},
		{"no table", []string{"-c", rules, "--column", "username", "x"}, 2},
		{"no column", []string{"-c", rules, "--table", "t_user", "x"}, 2},
		{"no rules", []string{"--table", "t_user", "--column", "username", "x"}, 2},
		{"unknown flag", []string{"--tabel", "t_user"}, 2},
		{"help", []string{"-h"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := encryptCmd(t, tc.args...)
			require.Equal(t, tc.code, code)
			require.Empty(t, out)
			require.Contains(t, errOut, usageText)
		})
	}
	code, out, _ := encryptCmd(t, "-c", rules)
	require.Equal(t, 2, code)
	require.Empty(t, out)

	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"help"}, nil, &stdout, &stderr))
	require.Contains(t, stdout.String(), "shardgen encrypt -c rules.yaml --table T --column C [--decrypt] VALUE...")
}
