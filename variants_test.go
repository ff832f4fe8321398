package hensachi_test

import (
	"strings"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/realdata"
)

// TestKanjiVariantPairs: no form is both folded and folded to, so the fold is one step whatever
// the order of the pairs, and a folded name folds to itself.
func TestKanjiVariantPairs(t *testing.T) {
	from := map[string]bool{}
	for i := 0; i < len(hensachi.KanjiVariantPairs); i += 2 {
		from[hensachi.KanjiVariantPairs[i]] = true
	}
	for i := 1; i < len(hensachi.KanjiVariantPairs); i += 2 {
		if from[hensachi.KanjiVariantPairs[i]] {
			t.Errorf("%s is both folded and folded to", hensachi.KanjiVariantPairs[i])
		}
	}
}

// TestKanjiVariantsInNames: every pair of FoldKanji's has a character a municipality's name is
// written with, so the table holds what the code list needs and no more.
func TestKanjiVariantsInNames(t *testing.T) {
	c := realdata.Catalog(t, "https://hensachi.example")
	var names strings.Builder
	for i := range c.Len() {
		names.WriteString(c.Row(i).Name)
	}
	for i := 0; i < len(hensachi.KanjiVariantPairs); i += 2 {
		if old, new := hensachi.KanjiVariantPairs[i], hensachi.KanjiVariantPairs[i+1]; !strings.Contains(names.String(), old) && !strings.Contains(names.String(), new) {
			t.Errorf("variants %s/%s: no municipality's name has either", old, new)
		}
	}
}
