package main

import (
	"fmt"
	"io"
)

const usage = `shardgen: compile-time sharding for MySQL (ShardingSphere-compatible rules)

Usage:
  shardgen vet -c rules.yaml [--ddl schema.sql]...   load and validate a ShardingSphere config
  shardgen generate [-f shardgen.yaml] [--check]     write the typed Go package (go generate runs this)
  shardgen explain [-f shardgen.yaml] [--format text|json]
                                                     print each query's route and per-node SQL
  shardgen preview -c rules.yaml [--ddl schema.sql]... [--param VALUE]... 'SQL'
                                                     route and rewrite one statement (JSON line per unit)
  shardgen encrypt -c rules.yaml --table T --column C [--decrypt] VALUE...
                                                     print what the encrypt rule stores for each value
  shardgen check broadcast -c rules.yaml [--table T]...
                                                     compare the copies of each broadcast table (checksums)
  shardgen proxy -c config.yaml --ddl schema.sql... [--listen 127.0.0.1:3307] [--insecure]
                                                     serve the logic database over the MySQL protocol
  shardgen migrate [-f shardgen.yaml] [--dry-run]    apply the DDL files to every actual table (once each)
  shardgen version                                   print the version

Run 'shardgen <command> -h' for a command's flags.
`

// Version is shardgen's version, printed in generated file headers.
const Version = "v0.1.0"

// run is the whole CLI: main only calls it, so tests drive the real CLI with
// buffers. It returns the process exit code: 0 ok, 1 the input has errors,
// 2 bad usage.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "vet":
		return runVet(args[1:], stdout, stderr)
	case "generate":
		return runGenerate(args[1:], stdout, stderr)
	case "explain":
		return runExplain(args[1:], stdout, stderr)
	case "preview":
		return runPreview(args[1:], stdout, stderr)
	case "encrypt":
		return runEncrypt(args[1:], stdout, stderr)
	case "proxy":
		return runProxy(args[1:], stdout, stderr)
	case "migrate":
		return runMigrate(args[1:], stdout, stderr)
	case "check":
		return runCheck(args[1:], stdout, stderr)
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "shardgen", Version)
		return 0
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "shardgen: unknown command %q\n\n%s", args[0], usage)
	return 2
}
