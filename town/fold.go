package town

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/hensachi/hensachi"
)

// searchKey folds text for matching, the query's words and the names and readings alike, so that
// one name written any of the ways people write it gives one key:
//   - NFKC, so that half-width katakana, full-width letters and the compatibility ideographs
//     (神 for 神) fold with their usual forms; then kana to full-width hiragana, letters and digits
//     to full width, latin letters to one case (hensachi.Hiragana);
//   - the old and variant kanji of municipal names to one form (hensachi.FoldKanji: 五條/五条,
//     梼原/檮原);
//   - the small ヶ and ヵ to け, and between two kanji a が or け to け (関ケ原, 関ヶ原, 関が原) and a っ to
//     つ, since the names' connecting particle is written all these ways;
//   - づ to ず and ぢ to じ, which sound alike and which people type either way (たからずか).
func searchKey(s string) string {
	s = strings.ToLower(norm.NFKC.String(s))
	s = hensachi.FoldKanji(s)
	r := []rune(hensachi.Hiragana(s))
	for i, c := range r {
		switch c {
		case 'ゖ', 'ゕ':
			r[i] = 'け'
		case 'づ':
			r[i] = 'ず'
		case 'ぢ':
			r[i] = 'じ'
		case 'が':
			if betweenKanji(r, i) {
				r[i] = 'け'
			}
		case 'っ':
			if betweenKanji(r, i) {
				r[i] = 'つ'
			}
		}
	}
	return string(r)
}

func betweenKanji(r []rune, i int) bool {
	return i > 0 && i < len(r)-1 && unicode.Is(unicode.Han, r[i-1]) && unicode.Is(unicode.Han, r[i+1])
}
