// Package rawfiles reads the government source files under ../shared/data/raw for the tests that
// hold the dataset and the indicator catalogue against them. It reads them by a path of its own and
// shares no code with package ingest (deps_test.go keeps it so), so that a mistake in the
// pipeline's parsers is not repeated here and passes unseen.
package rawfiles

import (
	"fmt"
	"strconv"
	"strings"
)

// number reads a figure as the files write it; where is the place an error names.
func number(where, s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, fmt.Errorf("%s: not a number: %q", where, s)
	}
	return v, nil
}
