package town

import (
	"strings"
	"unicode"

	"golang.org/x/text/width"

	"github.com/hensachi/hensachi"
)

// prefectureRomaji are the prefectures' names in Hepburn without their 都, 府 or 県, by code, for
// searches typed in latin letters (tokyo finds the municipalities of 東京都).
var prefectureRomaji = [...]string{"", "hokkaido", "aomori", "iwate", "miyagi", "akita", "yamagata",
	"fukushima", "ibaraki", "tochigi", "gunma", "saitama", "chiba", "tokyo", "kanagawa", "niigata",
	"toyama", "ishikawa", "fukui", "yamanashi", "nagano", "gifu", "shizuoka", "aichi", "mie", "shiga",
	"kyoto", "osaka", "hyogo", "nara", "wakayama", "tottori", "shimane", "okayama", "hiroshima",
	"yamaguchi", "tokushima", "kagawa", "ehime", "kochi", "fukuoka", "saga", "nagasaki", "kumamoto",
	"oita", "miyazaki", "kagoshima", "okinawa"}

// romajiKey folds latin spellings of a reading to one, so that a query matches whichever way people
// romanise: Hepburn or Kunrei (shi/si, chi/ti, tsu/tu, fu/hu, ji/zi, sha/sya), long vowels written
// twice, with a macron or not at all (oosaka, ōsaka, osaka; toukyou, tōkyō, tokyo; oh as in Ohno),
// n or m before b, m and p (shimbashi, shinbashi), nn for ん. Anything but letters is dropped.
func romajiKey(s string) string {
	s = strings.Map(func(r rune) rune {
		switch r {
		case 'ā', 'â':
			return 'a'
		case 'ī', 'î':
			return 'i'
		case 'ū', 'û':
			return 'u'
		case 'ē', 'ê':
			return 'e'
		case 'ō', 'ô':
			return 'o'
		}
		if r >= 'a' && r <= 'z' {
			return r
		}
		return -1
	}, strings.ToLower(width.Narrow.String(s)))
	s = kunrei.Replace(s)
	s = longVowels.Replace(s)
	return syllabicN.Replace(s)
}

var (
	kunrei = strings.NewReplacer("cchi", "tti", "tchi", "tti", "cch", "tty", "tch", "tty", "shi", "si", "chi", "ti", "tsu", "tu",
		"fu", "hu", "ji", "zi", "sh", "sy", "ch", "ty", "j", "zy")
	longVowels = strings.NewReplacer("aa", "a", "ii", "i", "uu", "u", "ee", "e", "oo", "o", "ou", "o",
		"ohb", "ob", "ohd", "od", "ohg", "og", "ohk", "ok", "ohm", "om", "ohn", "on", "ohr", "or",
		"ohs", "os", "oht", "ot", "ohy", "oy", "ohz", "oz")
	syllabicN = strings.NewReplacer("nn", "n", "mb", "nb", "mp", "np", "mm", "nm")
)

// isLatinWord reports whether a query word is written in latin letters (either width, with
// macrons, apostrophes or hyphens), to be matched against the readings' romaji.
func isLatinWord(w string) bool {
	letters := 0
	for _, r := range width.Narrow.String(w) {
		switch {
		case r < unicode.MaxASCII && unicode.IsLetter(r):
			letters++
		case strings.ContainsRune("āâīîūûēêōô'-’", r):
		default:
			return false
		}
	}
	return letters > 0
}

// romajiSearchKey is what a latin query word is matched against: the reading and the prefecture,
// each folded by romajiKey, apart so that a word cannot match across them.
func romajiSearchKey(m *hensachi.Municipality) string {
	key := romajiKey(hensachi.Romaji(m.Kana))
	if n := prefectureNumber(m.Prefecture.Code); n > 0 && n < len(prefectureRomaji) {
		key += " " + romajiKey(prefectureRomaji[n])
	}
	return key
}

func prefectureNumber(code string) int {
	if len(code) != 2 || code[0] < '0' || code[0] > '9' || code[1] < '0' || code[1] > '9' {
		return 0
	}
	return int(code[0]-'0')*10 + int(code[1]-'0')
}
