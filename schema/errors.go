package schema

import (
	"sort"
	"strings"
)

// Error is one problem in a user's file, reported as "file:line:col: message".
type Error struct {
	Pos Pos
	Msg string
}

// Error formats the problem as "file:line:col: message".
func (e *Error) Error() string {
	if p := e.Pos.String(); p != "" {
		return p + ": " + e.Msg
	}
	return e.Msg
}

// Errors collects every problem of a load so that all are reported at once.
// The zero value is ready to use.
type Errors []*Error

// Add records a problem at pos.
func (l *Errors) Add(pos Pos, msg string) { *l = append(*l, &Error{Pos: pos, Msg: msg}) }

// Err returns nil when l is empty, else l sorted by file, line and column
// (stable, so problems at one position keep the order they were found in).
func (l Errors) Err() error {
	if len(l) == 0 {
		return nil
	}
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Pos, l[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	return l
}

// Error joins every problem, one per line.
func (l Errors) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}
