// Package golden compares a test's output with a file in testdata/ and,
// under go test -update, rewrites the file instead; a mismatch fails with
// a line diff a person can read, as go/printer's golden tests do.
package golden
