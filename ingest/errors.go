package ingest

import "fmt"

// SourceError locates a problem in a source file. Row is 1-based as a spreadsheet shows it (0 when the
// problem is not tied to a row); Column names the header or key at fault (empty when none).
type SourceError struct {
	File   string
	Row    int
	Column string
	Err    error
}

func (e *SourceError) Error() string {
	s := e.File
	if e.Row > 0 {
		s += fmt.Sprintf(" row %d", e.Row)
	}
	if e.Column != "" {
		s += fmt.Sprintf(" column %q", e.Column)
	}
	return s + ": " + e.Err.Error()
}

func (e *SourceError) Unwrap() error { return e.Err }

func sourceErr(file string, row int, column string, format string, args ...any) error {
	return &SourceError{File: file, Row: row, Column: column, Err: fmt.Errorf(format, args...)}
}
