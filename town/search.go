package town

import (
	"cmp"
	"slices"
	"strings"

	"github.com/hensachi/hensachi"
)

// Search finds municipalities whose name, reading (in hiragana or katakana, either width, or in
// latin letters as people romanise it) or prefecture and name contain every word of the query, at
// most limit of them: exact names first, then names that start with the query, then the rest,
// each in code order.
func (c *Catalog) Search(query string, limit int) []*hensachi.Municipality {
	var words []searchWord
	for _, w := range strings.Fields(query) {
		if isLatinWord(w) {
			words = append(words, searchWord{key: romajiKey(w), latin: true})
		} else {
			words = append(words, searchWord{key: searchKey(w)})
		}
	}
	if len(words) == 0 {
		return nil
	}
	type hit struct{ row, class int }
	var hits []hit
	for i := range c.searchKeys {
		if !slices.ContainsFunc(words, func(w searchWord) bool { return !strings.Contains(c.searchKey(i, w.latin), w.key) }) {
			hits = append(hits, hit{i, c.searchClass(i, words[0])})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return cmp.Compare(a.class, b.class) })
	out := make([]*hensachi.Municipality, 0, min(limit, len(hits)))
	for _, h := range hits[:min(limit, len(hits))] {
		out = append(out, &c.towns[h.row])
	}
	return out
}

// searchWord is one word of a query, folded for the key it is matched against.
type searchWord struct {
	key   string
	latin bool // matched against the romanised reading and prefecture
}

func (c *Catalog) searchKey(row int, latin bool) string {
	if latin {
		return c.romajiKeys[row]
	}
	return c.searchKeys[row]
}

// searchClass orders a hit by how its name or reading meets the query's first word: 0 exactly, 1 at
// its start, 2 elsewhere.
func (c *Catalog) searchClass(row int, w searchWord) int {
	name, kana := c.searchNames[row], c.towns[row].Kana
	if w.latin {
		reading, _, _ := strings.Cut(c.romajiKeys[row], " ")
		name, kana = reading, reading
	}
	switch {
	case w.key == name || w.key == kana:
		return 0
	case strings.HasPrefix(name, w.key) || strings.HasPrefix(kana, w.key):
		return 1
	}
	return 2
}

// searchKey folds text for matching: kana to full-width hiragana, letters and digits to full width,
// latin letters to one case.
func searchKey(s string) string {
	return hensachi.Hiragana(strings.ToLower(s))
}
