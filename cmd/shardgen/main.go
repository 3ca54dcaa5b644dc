// Command shardgen generates typed, pre-routed Go functions from ShardingSphere
// rules, CREATE TABLE DDL and annotated SQL queries. See the README.
package main

import "os"

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
