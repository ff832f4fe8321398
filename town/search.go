package town

import (
	"cmp"
	"slices"
	"strings"

	"github.com/hensachi/hensachi"
)

// Search finds municipalities whose name, reading (in hiragana or katakana, either width) or
// prefecture and name contain every word of the query, at most limit of them: exact names first,
// then names that start with the query, then the rest, each in code order.
func (c *Catalog) Search(query string, limit int) []*hensachi.Municipality {
	words := strings.Fields(searchKey(query))
	if len(words) == 0 {
		return nil
	}
	type hit struct{ row, class int }
	var hits []hit
	for i, key := range c.searchKeys {
		all := true
		for _, w := range words {
			if !strings.Contains(key, w) {
				all = false
				break
			}
		}
		if !all {
			continue
		}
		name, kana := c.searchNames[i], c.towns[i].Kana
		class := 2
		switch {
		case words[0] == name || words[0] == kana:
			class = 0
		case strings.HasPrefix(name, words[0]) || strings.HasPrefix(kana, words[0]):
			class = 1
		}
		hits = append(hits, hit{i, class})
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return cmp.Compare(a.class, b.class) })
	out := make([]*hensachi.Municipality, 0, min(limit, len(hits)))
	for _, h := range hits[:min(limit, len(hits))] {
		out = append(out, &c.towns[h.row])
	}
	return out
}

// searchKey folds text for matching: kana to full-width hiragana, letters and digits to full width,
// latin letters to one case.
func searchKey(s string) string {
	return hensachi.Hiragana(strings.ToLower(s))
}
