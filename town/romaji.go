package town

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/width"
)

// prefectureKana are the prefectures' readings without their 都, 府 or 県, by code, for searches
// typed in kana or latin letters (とうきょう and tokyo find the municipalities of 東京都).
var prefectureKana = [...]string{"", "ほっかいどう", "あおもり", "いわて", "みやぎ", "あきた", "やまがた",
	"ふくしま", "いばらき", "とちぎ", "ぐんま", "さいたま", "ちば", "とうきょう", "かながわ", "にいがた",
	"とやま", "いしかわ", "ふくい", "やまなし", "ながの", "ぎふ", "しずおか", "あいち", "みえ", "しが",
	"きょうと", "おおさか", "ひょうご", "なら", "わかやま", "とっとり", "しまね", "おかやま", "ひろしま",
	"やまぐち", "とくしま", "かがわ", "えひめ", "こうち", "ふくおか", "さが", "ながさき", "くまもと",
	"おおいた", "みやざき", "かごしま", "おきなわ"}

// prefectureSuffixReading is the reading of a prefecture's 都, 府 or 県 (北海道's is in its name).
func prefectureSuffixReading(code string) string {
	switch prefectureNumber(code) {
	case 1:
		return ""
	case 13:
		return "と"
	case 26, 27:
		return "ふ"
	}
	return "けん"
}

// prefectureReading is the reading of a prefecture by its code, "" for a code of none.
func prefectureReading(code string) string {
	if n := prefectureNumber(code); n > 0 && n < len(prefectureKana) {
		return prefectureKana[n]
	}
	return ""
}

// romajiKey folds latin spellings of a reading to one, so that a query matches whichever way people
// romanise: Hepburn or Kunrei (shi/si, chi/ti, tsu/tu, fu/hu, ji/zi, sha/sya), long vowels written
// twice, with a macron or not at all (oosaka, ōsaka, osaka; toukyou, tōkyō, tokyo; oh as in Ohno),
// n or m before b, m and p (shimbashi, shinbashi), nn for ん, du and dzu for づ (takaraduka), di for
// ぢ. Anything but letters is dropped.
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
	}, strings.ToLower(width.Narrow.String(norm.NFKC.String(s))))
	// until nothing changes, so that a query typed with three of a vowel, nnn or ddu folds as far
	// as the reading it means: one pass leaves ooo as oo and ddu as dzu
	for {
		folded := syllabicN.Replace(longVowels.Replace(kunrei.Replace(s)))
		if folded == s {
			return s
		}
		s = folded
	}
}

var (
	kunrei = strings.NewReplacer("cchi", "tti", "tchi", "tti", "cch", "tty", "tch", "tty", "shi", "si", "chi", "ti", "tsu", "tu",
		"fu", "hu", "ji", "zi", "dzu", "zu", "du", "zu", "di", "zi", "dy", "zy", "sh", "sy", "ch", "ty", "j", "zy")
	longVowels = strings.NewReplacer("aa", "a", "ii", "i", "uu", "u", "ee", "e", "oo", "o", "ou", "o",
		"ohb", "ob", "ohd", "od", "ohg", "og", "ohk", "ok", "ohm", "om", "ohn", "on", "ohr", "or",
		"ohs", "os", "oht", "ot", "ohy", "oy", "ohz", "oz")
	syllabicN = strings.NewReplacer("nn", "n", "mb", "nb", "mp", "np", "mm", "nm")
)

// isLatinWord reports whether a query word is written in latin letters (either width, with
// macrons, apostrophes or hyphens), to be matched against the readings' romaji.
func isLatinWord(w string) bool {
	letters := 0
	for _, r := range strings.ToLower(width.Narrow.String(norm.NFKC.String(w))) {
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

func prefectureNumber(code string) int {
	if len(code) != 2 || code[0] < '0' || code[0] > '9' || code[1] < '0' || code[1] > '9' {
		return 0
	}
	return int(code[0]-'0')*10 + int(code[1]-'0')
}
