package hensachi

import (
	"strings"

	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/width"
)

// Hiragana folds a reading to full-width hiragana, so that readings compare whatever way they were
// typed or published: the code list writes half-width katakana (ｻｯﾎﾟﾛｼ), people type hiragana or
// full-width katakana. Other characters pass through, folded to their full-width form.
func Hiragana(s string) string {
	s = width.Widen.String(s)
	// widening keeps a half-width voiced mark as a spacing mark (カ゛); as a combining mark it
	// composes with its kana (ガ)
	s = strings.NewReplacer("\u309b", "\u3099", "\u309c", "\u309a").Replace(s)
	s = norm.NFC.String(s)
	return strings.Map(func(r rune) rune {
		if r >= 'ァ' && r <= 'ヶ' {
			return r - ('ァ' - 'ぁ')
		}
		return r
	}, s)
}

// hepburn spells each hiragana in modified Hepburn, the romanisation of road signs and passports.
var hepburn = map[rune]string{
	'あ': "a", 'い': "i", 'う': "u", 'え': "e", 'お': "o",
	'か': "ka", 'き': "ki", 'く': "ku", 'け': "ke", 'こ': "ko",
	'さ': "sa", 'し': "shi", 'す': "su", 'せ': "se", 'そ': "so",
	'た': "ta", 'ち': "chi", 'つ': "tsu", 'て': "te", 'と': "to",
	'な': "na", 'に': "ni", 'ぬ': "nu", 'ね': "ne", 'の': "no",
	'は': "ha", 'ひ': "hi", 'ふ': "fu", 'へ': "he", 'ほ': "ho",
	'ま': "ma", 'み': "mi", 'む': "mu", 'め': "me", 'も': "mo",
	'や': "ya", 'ゆ': "yu", 'よ': "yo",
	'ら': "ra", 'り': "ri", 'る': "ru", 'れ': "re", 'ろ': "ro",
	'わ': "wa", 'ゐ': "i", 'ゑ': "e", 'を': "o", 'ん': "n",
	'が': "ga", 'ぎ': "gi", 'ぐ': "gu", 'げ': "ge", 'ご': "go",
	'ざ': "za", 'じ': "ji", 'ず': "zu", 'ぜ': "ze", 'ぞ': "zo",
	'だ': "da", 'ぢ': "ji", 'づ': "zu", 'で': "de", 'ど': "do",
	'ば': "ba", 'び': "bi", 'ぶ': "bu", 'べ': "be", 'ぼ': "bo",
	'ぱ': "pa", 'ぴ': "pi", 'ぷ': "pu", 'ぺ': "pe", 'ぽ': "po",
	'ゔ': "vu",
	'ぁ': "a", 'ぃ': "i", 'ぅ': "u", 'ぇ': "e", 'ぉ': "o", 'ゎ': "wa",
	'ゃ': "ya", 'ゅ': "yu", 'ょ': "yo",
}

// Romaji spells a reading in Hepburn (さっぽろし → sapporoshi, ちゅうおうく → chuuouku): long vowels
// as their two letters, ん as n. Characters other than kana are left out.
func Romaji(reading string) string {
	var b strings.Builder
	double := false // after っ: the next syllable's consonant is doubled
	for _, r := range Hiragana(reading) {
		s, ok := hepburn[r]
		switch {
		case r == 'っ':
			double = true
			continue
		case r == 'ー':
			if out := b.String(); out != "" {
				b.WriteByte(out[len(out)-1]) // a long mark repeats the vowel before it
			}
			continue
		case !ok:
			continue
		}
		out := b.String()
		switch r {
		case 'ゃ', 'ゅ', 'ょ': // きゃ kya, しゃ sha, ちゃ cha, じゃ ja
			if strings.HasSuffix(out, "i") && len(out) > 1 {
				out = out[:len(out)-1]
				if strings.HasSuffix(out, "sh") || strings.HasSuffix(out, "ch") || strings.HasSuffix(out, "j") {
					s = s[1:]
				}
				b.Reset()
				b.WriteString(out)
			}
		case 'ぁ', 'ぃ', 'ぅ', 'ぇ', 'ぉ': // ふぁ fa, てぃ ti: the small vowel replaces the syllable's
			if n := len(out); n > 1 && strings.ContainsRune("aiueo", rune(out[n-1])) && !strings.ContainsRune("aiueo", rune(out[n-2])) {
				b.Reset()
				b.WriteString(out[:n-1])
			}
		}
		if double {
			double = false
			if strings.HasPrefix(s, "ch") {
				b.WriteByte('t') // っち is tchi
			} else if s[0] != 'a' && s[0] != 'i' && s[0] != 'u' && s[0] != 'e' && s[0] != 'o' && s[0] != 'n' {
				b.WriteByte(s[0])
			}
		}
		b.WriteString(s)
	}
	return b.String()
}
