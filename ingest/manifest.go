package ingest

import (
	"cmp"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
)

//go:embed sources.json
var manifestJSON []byte

// Source is one input file of the dataset as the manifest records it.
type Source struct {
	ID         string `json:"id"`
	Path       string `json:"path"` // relative to the raw directory
	Role       string `json:"role"`
	Publisher  string `json:"publisher"`
	Title      string `json:"title"`
	URL        string `json:"url"` // download address; empty when none exists
	Origin     string `json:"origin"`
	SurveyYear string `json:"survey_year"`
	SHA256     string `json:"sha256"`
	Credit     string `json:"credit"`
	// Series names the family of files a file belongs to when there are several of one source:
	// "ssdse" for the editions of SSDSE-A, "finance" for the years of 全市町村の主要財政指標.
	Series string `json:"series,omitempty"`
	// Year orders a series: the edition of an SSDSE-A file, the fiscal year of a finance file.
	Year int `json:"year,omitempty"`
}

// RenamedItem is an SSDSE-A item whose Japanese name differs between editions while its
// definition does not; Reason says how that was established. A name change not listed here is a
// change of definition, which an indicator must not cross silently (see hensachi.Indicator.Breaks).
type RenamedItem struct {
	Item   string   `json:"item"`
	Names  []string `json:"names"`
	Reason string   `json:"reason"`
}

// SurveyYear re-dates an SSDSE-A item whose editions write a survey's day by the fiscal year that
// holds it (the census of agriculture of 1 February 2020 as 2019): the series takes the survey's
// own year, so that it is labelled as the survey has it and meets the census of that year.
type SurveyYear struct {
	Items   []string `json:"items"`
	Written int      `json:"written"`
	Year    int      `json:"year"`
	Reason  string   `json:"reason"`
}

// Manifest lists every source file the dataset is built from.
type Manifest struct {
	// DataUpdated is the date this set of sources was last revised; it is the dataset's creation
	// date, fixed here rather than taken from the clock so that a rebuild is byte-identical.
	DataUpdated string `json:"data_updated"`
	// FurusatoDataUpdated is the publication date of the newest hometown-tax figures.
	FurusatoDataUpdated string   `json:"furusato_data_updated"`
	Sources             []Source `json:"sources"`
	// RenamedItems are the SSDSE-A items renamed between editions without a change of definition.
	RenamedItems []RenamedItem `json:"ssdse_renamed_items"`
	// SurveyYears re-date the SSDSE-A items written by another year than their survey's.
	SurveyYears []SurveyYear `json:"ssdse_survey_years"`
}

// surveyYear is the survey year of an SSDSE-A item written as year written.
func (m *Manifest) surveyYear(item string, written int) int {
	for _, sy := range m.SurveyYears {
		if sy.Written == written && slices.Contains(sy.Items, item) {
			return sy.Year
		}
	}
	return written
}

// LoadManifest returns the manifest compiled into the binary.
func LoadManifest() (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(manifestJSON, &m); err != nil {
		return nil, fmt.Errorf("parse sources manifest: %w", err)
	}
	return &m, nil
}

// Source returns the entry with the given id; it panics on an unknown id, which is a programming error.
func (m *Manifest) Source(id string) Source {
	for _, s := range m.Sources {
		if s.ID == id {
			return s
		}
	}
	panic("ingest: no source " + id + " in the manifest")
}

// Series returns the files of a series, ordered by Year.
func (m *Manifest) Series(name string) []Source {
	var out []Source
	for _, s := range m.Sources {
		if s.Series == name {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b Source) int { return cmp.Compare(a.Year, b.Year) })
	return out
}

// FileSHA256 returns the hex SHA-256 of a file.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// HashMismatch reports a source file whose content differs from the manifest.
type HashMismatch struct {
	Path, Want, Got string
}

func (h HashMismatch) String() string {
	return fmt.Sprintf("%s: sha256 %s, manifest expects %s (the publisher may have released a new version; check the figures before publishing)", h.Path, h.Got, h.Want)
}

// Check verifies that every source file exists in rawDir and compares its hash with the manifest.
// A missing file is an error; a differing hash is returned for the caller to warn about.
func (m *Manifest) Check(rawDir string) ([]HashMismatch, error) {
	var mismatches []HashMismatch
	for _, s := range m.Sources {
		p := filepath.Join(rawDir, s.Path)
		got, err := FileSHA256(p)
		if err != nil {
			return nil, fmt.Errorf("source %s (%s): %w; run 'make fetch' or copy it from %s", s.ID, p, err, s.Origin)
		}
		if got != s.SHA256 {
			mismatches = append(mismatches, HashMismatch{Path: p, Want: s.SHA256, Got: got})
		}
	}
	return mismatches, nil
}
