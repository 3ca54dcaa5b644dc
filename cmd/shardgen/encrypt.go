package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shardgen/shardgen/runtime"
	"github.com/shardgen/shardgen/schema"
)

// runEncrypt is `shardgen encrypt -c rules.yaml --table T --column C
// [--decrypt] VALUE...`: it loads the rules (schema.LoadFile), finds the
// encrypt rule of logic column C of logic table T (names case-insensitive)
// and prints, for each VALUE, one line with what ShardingSphere stores for
// it, tab-separated, only the configured columns, in INSERT order:
//
//	VALUE	cipher=...	assisted=...	like=...	plain=VALUE
//
// (plain only for a 5.1 plainColumn). VALUE is the Java text of the logic
// value (String.valueOf: "1000" for the Long 1000). With --decrypt each
// VALUE is a cipher column value and the line is its plain text; the
// cipher encryptor must be able to decrypt (AES, RC4).
//
// A field that holds a control character or invalid UTF-8, or starts with
// '"', is printed Go-quoted so every value stays on its line.
// Errors go to stderr. Exit code: 0 ok, 1 the rules or a value have errors
// (every value is still tried), 2 bad usage.
func runEncrypt(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("encrypt", flag.ContinueOnError)
	fs.SetOutput(stderr)
	config := fs.String("c", "", "ShardingSphere 5.x YAML `file` with the !ENCRYPT rule")
	table := fs.String("table", "", "logic `table` (case-insensitive)")
	column := fs.String("column", "", "logic `column` (case-insensitive)")
	decrypt := fs.Bool("decrypt", false, "each VALUE is a cipher text: print its plain text")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: shardgen encrypt -c rules.yaml --table T --column C [--decrypt] VALUE...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *config == "" || *table == "" || *column == "" || fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	cfg, err := schema.LoadFile(*config)
	if err != nil {
		printErrors(stderr, err)
		return 1
	}
	col, err := findEncryptColumn(cfg, *table, *column)
	if err != nil {
		fmt.Fprintln(stderr, "shardgen encrypt:", err)
		return 1
	}
	rule := cfg.Encrypt
	cipher, err := columnEncryptor(rule, col.Cipher)
	if err != nil {
		fmt.Fprintln(stderr, "shardgen encrypt:", err)
		return 1
	}
	if *decrypt {
		return decryptValues(fs.Args(), col, cipher, stdout, stderr)
	}

	type field struct {
		name    string // cipher, assisted or like
		encName string // the encryptor's name in the rule
		enc     runtime.Encryptor
	}
	fields := []field{{"cipher", col.Cipher.Encryptor, cipher}}
	for _, d := range []struct {
		name string
		der  *schema.EncryptDerived
	}{{"assisted", col.AssistedQuery}, {"like", col.LikeQuery}} {
		if d.der == nil {
			continue
		}
		enc, err := columnEncryptor(rule, *d.der)
		if err != nil {
			fmt.Fprintln(stderr, "shardgen encrypt:", err)
			return 1
		}
		fields = append(fields, field{d.name, d.der.Encryptor, enc})
	}
	for _, f := range fields {
		if like, ok := f.enc.(*runtime.CharDigestLikeEncryptor); ok && like.DefaultDict() {
			fmt.Fprintf(stderr, "shardgen encrypt: warning: encryptor %q (CHAR_DIGEST_LIKE) has no dict prop; ShardingSphere then uses its built-in dictionary, which shardgen does not ship, so its characters encrypt differently: give dict for byte compatibility\n", f.encName)
		}
	}
	var line strings.Builder
	for _, v := range fs.Args() {
		line.Reset()
		line.WriteString(cliField(v))
		for _, f := range fields {
			line.WriteString("\t" + f.name + "=" + cliField(f.enc.EncryptText(v)))
		}
		if col.Plain != "" {
			line.WriteString("\tplain=" + cliField(v))
		}
		fmt.Fprintln(stdout, line.String())
	}
	return 0
}

// decryptValues prints the plain text of each cipher text in values, one
// per line; a value that does not decrypt is reported and skipped.
func decryptValues(values []string, col *schema.EncryptColumn, cipher runtime.Encryptor, stdout, stderr io.Writer) int {
	if !cipher.Supports().Has(runtime.SupportDecrypt) {
		fmt.Fprintf(stderr, "shardgen encrypt: --decrypt: the cipher encryptor %q of column %q is %s, which cannot decrypt\n", col.Cipher.Encryptor, col.Name, cipher.Type())
		return 1
	}
	code := 0
	for _, v := range values {
		plain, err := cipher.Decrypt(v)
		if err != nil {
			fmt.Fprintf(stderr, "shardgen encrypt: %s: %v\n", strconv.Quote(v), err)
			code = 1
			continue
		}
		fmt.Fprintln(stdout, cliField(plain))
	}
	return code
}

// findEncryptColumn returns the encrypt rule of logic column column of logic
// table table (case-insensitive), or an error naming what is missing and
// what is there.
func findEncryptColumn(cfg *schema.Config, table, column string) (*schema.EncryptColumn, error) {
	rule := cfg.Encrypt
	if rule == nil {
		return nil, fmt.Errorf("%s has no !ENCRYPT rule", cfg.File)
	}
	var tables []string
	for _, t := range rule.Tables {
		if !strings.EqualFold(t.Name, table) {
			tables = append(tables, t.Name)
			continue
		}
		var cols []string
		for _, c := range t.Columns {
			if strings.EqualFold(c.Name, column) {
				return c, nil
			}
			cols = append(cols, c.Name)
		}
		sort.Strings(cols)
		return nil, fmt.Errorf("column %q of table %q is not encrypted (encrypted columns: %s)", column, t.Name, listOrNone(cols))
	}
	sort.Strings(tables)
	return nil, fmt.Errorf("table %q has no encrypt rule in %s (encrypted tables: %s)", table, cfg.File, listOrNone(tables))
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// columnEncryptor builds the encryptor d names from the rule's encryptors.
func columnEncryptor(rule *schema.EncryptRule, d schema.EncryptDerived) (runtime.Encryptor, error) {
	spec := rule.Encryptors[d.Encryptor]
	if spec == nil {
		return nil, fmt.Errorf("encryptor %q of column %q is not defined in encryptors", d.Encryptor, d.Column)
	}
	enc, err := runtime.NewEncryptor(spec.Type, spec.Props)
	if err != nil {
		return nil, fmt.Errorf("encryptor %q (%s): %w", spec.Name, spec.Type, err)
	}
	return enc, nil
}

// cliField returns s as printed in a line: as is, or Go-quoted when it holds
// a control character or invalid UTF-8, or starts with '"'.
func cliField(s string) string {
	if strings.HasPrefix(s, `"`) || !utf8.ValidString(s) || strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return strconv.Quote(s)
	}
	return s
}
