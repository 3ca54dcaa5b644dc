package main

import (
	"fmt"
	"io"
)

// TODO(stub): replaced by the schema work.
func runVet(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "shardgen vet: not implemented yet")
	return 2
}
