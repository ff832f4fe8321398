package training

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The official 60/40 split of SCUT-FBP5500 v2, relative to the dataset directory.
const (
	scutImages = "SCUT-FBP5500_v2/Images"
	scutSplit  = "SCUT-FBP5500_v2/train_test_files/split_of_60%training and 40%testing"
)

// ReadSCUT reads SCUT-FBP5500's official split, the training part first; the test part is held
// out, for the age and gender model as for the attractiveness model.
func ReadSCUT(dir string) ([]Sample, error) {
	train, test, err := ReadSplit(dir)
	if err != nil {
		return nil, err
	}
	return append(train, test...), nil
}

// ReadSplit reads the official training and test lists ("AF1.jpg 2.71" per line). A sample's
// group is its file name, whose prefix gives gender and ethnicity.
func ReadSplit(dir string) (train, test []Sample, err error) {
	if train, err = readList(dir, "train.txt", false); err != nil {
		return nil, nil, err
	}
	if test, err = readList(dir, "test.txt", true); err != nil {
		return nil, nil, err
	}
	return train, test, nil
}

// ImagePath is the file of an image named in the split lists.
func ImagePath(dir, name string) string { return filepath.Join(dir, scutImages, name) }

func readList(dir, list string, heldOut bool) ([]Sample, error) {
	path := filepath.Join(dir, scutSplit, list)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Sample
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if len(fields) != 2 || len(fields[0]) < 3 {
			return nil, fmt.Errorf("%s line %d: want 'NAME.jpg rating'", path, line)
		}
		name := fields[0]
		r, err := strconv.ParseFloat(fields[1], 64)
		if err != nil || r < 1 || r > 5 {
			return nil, fmt.Errorf("%s line %d: rating %q is not in 1–5", path, line, fields[1])
		}
		ethnic := map[byte]string{'A': "Asian", 'C': "Caucasian"}[name[0]]
		if ethnic == "" || (name[1] != 'M' && name[1] != 'F') {
			return nil, fmt.Errorf("%s line %d: SCUT-FBP5500 file %q: prefix is not AF, AM, CF or CM", path, line, name)
		}
		out = append(out, Sample{Path: ImagePath(dir, name), Source: SourceSCUT, Male: name[1] == 'M',
			Ethnic: ethnic, Group: name, HeldOut: heldOut, Rating: r})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}
