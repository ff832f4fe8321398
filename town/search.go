package town

import (
	"cmp"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/width"

	"github.com/hensachi/hensachi"
)

// Search finds municipalities whose name, reading (in hiragana or katakana, either width, or in
// latin letters as people romanise it), prefecture and name, or prefecture's reading and name's
// reading contain every word of the query, each word folded as searchKey and romajiKey say, and
// those whose code a word gives (five digits, or six with the check digit): at most limit of them,
// exact names and codes first, then names that start with the query, then the rest, each in code
// order.
func (c *Catalog) Search(query string, limit int) []*hensachi.Municipality {
	words := searchWords(query)
	if len(words) == 0 {
		return nil
	}
	type hit struct{ row, class int }
	var hits []hit
	for i := range c.searchKeys {
		if !slices.ContainsFunc(words, func(w searchWord) bool { return !c.matches(i, w) }) {
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
	key  string
	kind wordKind
}

type wordKind int

const (
	textWord  wordKind = iota // matched against names, readings and prefectures (searchKey)
	latinWord                 // matched against the romanised reading and prefecture (romajiKey)
	codeWord                  // a municipality's 5-digit code
)

// searchWords splits a query into its words, folded.
func searchWords(query string) []searchWord {
	var words []searchWord
	for _, w := range strings.Fields(query) {
		switch code, ok := municipalityCode(w); {
		case ok:
			words = append(words, searchWord{key: code, kind: codeWord})
		case isLatinWord(w):
			words = append(words, searchWord{key: romajiKey(w), kind: latinWord})
		default:
			words = append(words, searchWord{key: searchKey(w), kind: textWord})
		}
	}
	return words
}

// municipalityCode reads a word of digits (either width) as a municipality code: five digits as they
// are, six as the code and its check digit, which must be right. A wrong check digit is no code, so
// that a mistyped code finds nothing rather than another municipality.
func municipalityCode(w string) (string, bool) {
	w = width.Narrow.String(norm.NFKC.String(w))
	if strings.ContainsFunc(w, func(r rune) bool { return r < '0' || r > '9' }) {
		return "", false
	}
	switch {
	case len(w) == 5:
		return w, true
	case len(w) == 6 && hensachi.CheckDigit(w[:5]) == w[5]:
		return w[:5], true
	}
	return "", false
}

func (c *Catalog) matches(row int, w searchWord) bool {
	switch w.kind {
	case codeWord:
		return c.towns[row].Code == w.key
	case latinWord:
		return strings.Contains(c.romajiKeys[row], w.key)
	}
	return strings.Contains(c.searchKeys[row], w.key)
}

// searchClass orders a hit by how its name, reading or code meets the query's first word: 0 exactly,
// 1 at its start, 2 elsewhere.
func (c *Catalog) searchClass(row int, w searchWord) int {
	name, kana := c.searchNames[row], c.searchKanas[row]
	switch w.kind {
	case codeWord:
		return 0
	case latinWord:
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

// maxSuggestions bounds Suggest.
const maxSuggestions = 5

// Suggest proposes municipalities for a query that Search finds nothing for (もしかして): a query of
// one word in kana or latin letters, of three letters at least, one edit (a letter added, dropped or
// changed) away from the start of a reading, so that たからずく or takarazka proposes 宝塚市. At most
// maxSuggestions, in code order; none for a query that finds something or is written otherwise.
func (c *Catalog) Suggest(query string) []*hensachi.Municipality {
	words := searchWords(query)
	if len(words) != 1 || len(c.Search(query, 1)) > 0 {
		return nil
	}
	w := words[0]
	q := []rune(w.key)
	if len(q) < 3 || w.kind == codeWord || w.kind == textWord && strings.ContainsFunc(w.key, func(r rune) bool { return !unicode.Is(unicode.Hiragana, r) && r != 'ー' }) {
		return nil
	}
	var out []*hensachi.Municipality
	for i := range c.towns {
		reading := c.searchKanas[i]
		if w.kind == latinWord {
			reading, _, _ = strings.Cut(c.romajiKeys[i], " ")
		}
		if prefixDistance(q, []rune(reading)) <= 1 {
			out = append(out, &c.towns[i])
			if len(out) == maxSuggestions {
				break
			}
		}
	}
	return out
}

// prefixDistance is the least edit distance (Levenshtein, by character) between q and a prefix of s.
func prefixDistance(q, s []rune) int {
	prev, cur := make([]int, len(s)+1), make([]int, len(s)+1) // prev[j]: distance of q[:i] and s[:j]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(q); i++ {
		cur[0] = i
		for j := 1; j <= len(s); j++ {
			sub := prev[j-1]
			if q[i-1] != s[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return slices.Min(prev)
}
