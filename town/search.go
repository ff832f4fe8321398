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
// reading contain every word of the query, each word folded as searchKey and romajiKey say; those
// whose code a word gives (five digits, or six with the check digit); and the designated cities
// whose ward a word names (港北区, 横浜市港北区, こうほく, the ward's code: Wards says which). At
// most limit of them, exact names and codes first, then names that start with the query, then the
// rest, each in code order; a municipality's own name before a ward's in each.
func (c *Catalog) Search(query string, limit int) []*hensachi.Municipality {
	words := c.searchWords(query)
	if len(words) == 0 {
		return nil
	}
	type hit struct{ row, class int }
	var hits []hit
	for i := range c.search {
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

// WardHit is a ward of a designated city that a query names, and the city Search finds for it.
type WardHit struct {
	Ward hensachi.Ward
	City *hensachi.Municipality
}

// Wards are the wards by which Search finds their city for query, in code order: those a word of
// the query matches that the city's own name, reading and prefecture do not, so that the reader
// learns why the city is listed (港北区は横浜市の区).
func (c *Catalog) Wards(query string) []WardHit {
	words := c.searchWords(query)
	var out []WardHit
	for _, w := range c.wards {
		viaWard := func(word searchWord) bool { return w.named(word) && !c.search[w.city].matches(word) }
		if slices.ContainsFunc(words, viaWard) && !slices.ContainsFunc(words, func(word searchWord) bool { return !c.matches(w.city, word) }) {
			out = append(out, WardHit{Ward: w.Ward, City: &c.towns[w.city]})
		}
	}
	return out
}

// searchEntry is what a query's words are matched against for a municipality or a ward, folded.
type searchEntry struct {
	// key is for the words in kanji or kana (searchKey): the name and the reading, apart so that a
	// word cannot match across them
	key string
	// romaji is for the words in latin letters (romajiKey): the reading and the prefecture's
	// reading
	romaji string
	// long and romajiLong are the longer forms (prefecture and name, city and ward) in kanji, in
	// kana and in romaji, which a word matches from their start only: 東京都千代田 or
	// tokyochiyoda, but not 京都 in 東京都 nor kyoto in tokyo-toshima
	long, romajiLong []string
	// name and kana alone, and the reading in romaji alone, rank exact and leading matches first
	name, kana, romajiReading string
	code                      string
}

func municipalityEntry(m *hensachi.Municipality) searchEntry {
	p := m.Prefecture.Code
	return newEntry(m.Code, p, m.Name, m.Kana, m.Prefecture.Name+m.Name,
		prefectureReading(p)+m.Kana, prefectureReading(p)+prefectureSuffixReading(p)+m.Kana)
}

// newEntry folds a name and its reading, and the longer forms a word may give them in (prefecture
// and name, with or without the reading of 都府県; city and ward), into the entry of code.
func newEntry(code, pref, name, kana, longName string, longKana ...string) searchEntry {
	reading := romajiKey(hensachi.Romaji(kana))
	e := searchEntry{
		key:    searchKey(name + " " + kana),
		romaji: reading + " " + romajiKey(hensachi.Romaji(prefectureReading(pref))),
		long:   []string{searchKey(longName)},
		name:   searchKey(name), kana: searchKey(kana), romajiReading: reading, code: code,
	}
	for _, l := range longKana {
		e.long = append(e.long, searchKey(l))
		e.romajiLong = append(e.romajiLong, romajiKey(hensachi.Romaji(l)))
	}
	return e
}

// ward is a designated city's ward with its search entry and its city's row.
type ward struct {
	hensachi.Ward
	searchEntry
	city int
}

// named reports whether word names the ward: as its entry matches words, or as the city, town or
// village it was before it became the ward of its name (浦和市, now さいたま市浦和区), or one of the
// wards it was split into by direction (小倉市: 北九州市小倉北区 and 小倉南区).
func (w *ward) named(word searchWord) bool {
	if w.matches(word) {
		return true
	}
	if word.formerly == "" {
		return false
	}
	rest, ok := strings.CutPrefix(w.name, word.formerly)
	return ok && slices.Contains([]string{"区", "東区", "西区", "南区", "北区", "中区"}, rest)
}

// setWards keeps the wards of the cities the catalog has, for the search.
func (c *Catalog) setWards(wards []hensachi.Ward) {
	c.wardsOf = map[int][]int{}
	for _, w := range wards {
		row, ok := c.byCode[w.City]
		if !ok {
			continue // a city the dataset does not hold has nothing to be found
		}
		city := &c.towns[row]
		c.wardsOf[row] = append(c.wardsOf[row], len(c.wards))
		c.wards = append(c.wards, ward{Ward: w, city: row,
			searchEntry: newEntry(w.Code, city.Prefecture.Code, w.Name, w.Kana, city.Name+w.Name, city.Kana+w.Kana)})
	}
}

// searchWord is one word of a query, folded for the key it is matched against.
type searchWord struct {
	key  string
	kind wordKind
	// formerly is, for a word that ends in 市, 町 or 村, the name without it, which a ward's name
	// may keep (浦和市: 浦和区), folded
	formerly string
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
			if designations[strings.ToLower(w)] {
				continue // Shinjuku City: the English for 市 is in no reading
			}
			words = append(words, searchWord{key: romajiKey(w), kind: latinWord})
		default:
			word := searchWord{key: searchKey(w), kind: textWord}
			if r := []rune(word.key); len(r) >= 3 && strings.ContainsRune("市町村", r[len(r)-1]) {
				word.formerly = string(r[:len(r)-1])
			}
			words = append(words, word)
		}
	}
	return words
}

// designations are the English words for 市, 町, 村, 区 and 都道府県 that people add to a romanised
// name (Shinjuku City, Naha City, Ishikawa Prefecture), which a search leaves out.
var designations = map[string]bool{"city": true, "town": true, "village": true, "ward": true, "prefecture": true, "pref": true}

// searchWords are the words of a query as Search and Wards match them: a word that is the name of a
// municipality (中央市) means it, not a ward of that name (中央区) that it might have become.
func (c *Catalog) searchWords(query string) []searchWord {
	words := searchWords(query)
	for i, w := range words {
		if w.formerly != "" && slices.ContainsFunc(c.search, func(e searchEntry) bool { return e.name == w.key }) {
			words[i].formerly = ""
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

// matches reports whether row's entry or one of its wards' matches w.
func (c *Catalog) matches(row int, w searchWord) bool {
	return c.search[row].matches(w) || slices.ContainsFunc(c.wardsOf[row], func(k int) bool { return c.wards[k].named(w) })
}

func (e *searchEntry) matches(w searchWord) bool {
	switch w.kind {
	case codeWord:
		return e.code == w.key
	case latinWord:
		return strings.Contains(e.romaji, w.key) || slices.ContainsFunc(e.romajiLong, func(l string) bool { return strings.HasPrefix(l, w.key) })
	}
	return strings.Contains(e.key, w.key) || slices.ContainsFunc(e.long, func(l string) bool { return strings.HasPrefix(l, w.key) })
}

// searchClass orders a hit by how the name, reading or code of its entry or ward that w matches
// meets it: exactly, at its start, elsewhere; a municipality's own before a ward's of the same
// class, so that 北区 lists 東京都北区 before the cities with a 北区.
func (c *Catalog) searchClass(row int, w searchWord) int {
	class := 2 * c.search[row].class(w)
	for _, k := range c.wardsOf[row] {
		if c.wards[k].named(w) {
			class = min(class, 2*c.wards[k].class(w)+1)
		}
	}
	return class
}

func (e *searchEntry) class(w searchWord) int {
	name, kana := e.name, e.kana
	switch w.kind {
	case codeWord:
		return 0
	case latinWord:
		name, kana = e.romajiReading, e.romajiReading
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
		reading := c.search[i].kana
		if w.kind == latinWord {
			reading = c.search[i].romajiReading
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
