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
