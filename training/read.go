// Package training is where the trained models of face/score and face/attr are made and
// measured: the labelled datasets, the degraded and hard copies of their images, the feature extraction
// with the service's own pipeline, and what the two fits share. The fits, evaluations and model
// cards are in training/attractiveness and training/attributes; cmd/train-models runs them. The
// server links none of it.
package training

import (
	"encoding/csv"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hensachi/hensachi/face"
	"github.com/hensachi/hensachi/training/spoil"
)

// The sources of labelled faces.
const (
	SourceUTKFace = "utkface"
	SourceSCUT    = "scut"
)

// Sample is one labelled face image. SCUT-FBP5500 has no ages, UTKFace no ratings.
type Sample struct {
	Path    string
	Source  string
	Age     int
	Male    bool
	Ethnic  string // White, Black, Asian, Indian, Others (UTKFace); Asian, Caucasian (SCUT-FBP5500)
	Group   string // the unit of the held-out split and of the folds: one group is never split
	HeldOut bool   // never used for fitting
	// Rating is the mean attractiveness rating on the 1–5 scale (SCUT-FBP5500).
	Rating float64
	// Degraded says the features are of a low-resolution, recompressed copy of the image (Degrade).
	Degraded bool
	// Hard, when set, says they are of a copy of the image spoilt in that way (HardCopies).
	Hard     spoil.Kind
	Features *face.Features
}

// Original reports whether the features are of the image itself, not of a copy.
func (s *Sample) Original() bool { return !s.Degraded && s.Hard == "" }

// HasAge reports whether the sample's age is known.
func (s *Sample) HasAge() bool { return s.Source == SourceUTKFace }

var utkEthnicities = []string{"White", "Black", "Asian", "Indian", "Others"}

// heldOutShare is one in how many UTKFace groups is held out from fitting.
const heldOutShare = 5

// utkGroup is a UTKFace file's group: the ten-minute window of its file-name time stamp
// (age_gender_race_yyyymmddHHMMSSfff.jpg.chip.jpg). Chips of one person were collected together,
// so they share a window; whole days are too coarse (the collection went through ages in order).
func utkGroup(name string) (string, error) {
	parts := strings.Split(name, "_")
	if len(parts) < 4 || len(parts[3]) < 11 {
		return "", fmt.Errorf("UTKFace file name %q has no time stamp", name)
	}
	return parts[3][:11], nil
}

// Bucket hashes a group into one of n buckets, so splits and folds are fixed without a list and
// do not depend on the order of the files.
func Bucket(salt, group string, n int) int {
	h := fnv.New32a()
	io.WriteString(h, salt)
	io.WriteString(h, group)
	return int(h.Sum32() % uint32(n))
}

// ReadUTKFace reads labels.csv (file, age, gender, race) of the UTKFace training pool.
func ReadUTKFace(dir string) ([]Sample, error) {
	f, err := os.Open(filepath.Join(dir, "labels.csv"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = 4
	var out []Sample
	for line := 1; ; line++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name(), err)
		}
		if line == 1 && rec[0] == "file" {
			continue
		}
		age, err := strconv.Atoi(rec[1])
		if err != nil || age < 0 || age > 130 {
			return nil, fmt.Errorf("%s line %d: age %q", f.Name(), line, rec[1])
		}
		if rec[2] != "male" && rec[2] != "female" {
			return nil, fmt.Errorf("%s line %d: gender %q", f.Name(), line, rec[2])
		}
		race, err := strconv.Atoi(rec[3])
		if err != nil || race < 0 || race >= len(utkEthnicities) {
			return nil, fmt.Errorf("%s line %d: race %q", f.Name(), line, rec[3])
		}
		group, err := utkGroup(rec[0])
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", f.Name(), line, err)
		}
		out = append(out, Sample{Path: filepath.Join(dir, "images", rec[0]), Source: SourceUTKFace, Age: age,
			Male: rec[2] == "male", Ethnic: utkEthnicities[race], Group: group,
			HeldOut: Bucket("", group, heldOutShare) == 0})
	}
	return out, nil
}
