package hensachi

import "fmt"

// Column is one column of a table of municipalities, such as the bulk export's: its name and
// exactly one of its value slices, all of a table's columns the same length. Strings are never
// null; a number that is not Valid is null. The file formats of a table (csvfile, parquetfile)
// write columns whatever they hold.
type Column struct {
	Name    string
	Strings []string
	Ints    []Optional[int64]
	Floats  []Optional[float64]
}

// Len is the number of values in the column.
func (c Column) Len() int { return max(len(c.Strings), len(c.Ints), len(c.Floats)) }

// Rows is the number of rows of a table of columns, which must all be that long.
func Rows(cols []Column) (int, error) {
	if len(cols) == 0 {
		return 0, nil
	}
	rows := cols[0].Len()
	for _, c := range cols {
		if c.Len() != rows {
			return 0, fmt.Errorf("column %s has %d values, not %d", c.Name, c.Len(), rows)
		}
	}
	return rows, nil
}
