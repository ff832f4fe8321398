package town

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSearchKey(t *testing.T) {
	tests := []struct{ in, want string }{
		{"鎌ヶ谷", "鎌け谷"},
		{"鎌ケ谷", "鎌け谷"},
		{"鎌ｹ谷", "鎌け谷"},
		{"鎌が谷", "鎌け谷"},
		{"六ヵ所", "六け所"},
		{"かすみがうら", "かすみがうら"}, // が between kana is a syllable
		{"がま", "がま"},
		{"五條", "五条"},
		{"檮原", "梼原"},
		{"たからづか", "たからずか"},
		{"ｵﾁﾞﾔ", "おじや"},
		{"Ｔａｋａ", "ｔａｋａ"},
		{"\ufa19戸", "神戸"},
		{"大﨑", "大崎"},
	}
	for _, tt := range tests {
		if got := searchKey(tt.in); got != tt.want {
			t.Errorf("searchKey(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRomajiKey(t *testing.T) {
	for _, group := range [][]string{
		{"oita", "Ōita", "ōita", "ooita", "OOITA", "O\u0304ita", "Ｏｉｔａ"},
		{"otsu", "Ōtsu", "ohtsu", "ootsu", "outsu", "otu"},
		{"takarazuka", "takaraduka", "takaradzuka"},
		{"ojiya", "oziya", "odiya"},
		{"shimbashi", "shinbashi", "sinbasi"},
	} {
		for _, s := range group[1:] {
			if got, want := romajiKey(s), romajiKey(group[0]); got != want {
				t.Errorf("romajiKey(%q) = %q, romajiKey(%q) = %q; want them equal", s, got, group[0], want)
			}
		}
	}
}

func TestMunicipalityCode(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"28214", "28214", true},
		{"282146", "28214", true},
		{"２８２１４６", "28214", true},
		{"282145", "", false}, // wrong check digit
		{"2821", "", false},
		{"2821a", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		if got, ok := municipalityCode(tt.in); got != tt.want || ok != tt.ok {
			t.Errorf("municipalityCode(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// FuzzSearchKey: the query's folds give valid text, fold what they give to itself (a name folded at
// build and a query folded at search meet), and never panic whatever a query holds.
func FuzzSearchKey(f *testing.F) {
	for _, s := range []string{"鎌ヶ谷", "関が原", "ﾀｶﾗｽﾞｶ", "Ōita", "O\u0304ita", "takaraduka", "282146", "２８２１４",
		"兵庫県 寳塚", "\ufa19戸", "ｶﾞ", "ﾞ", "っ", "鎌っ谷", "\xff", "oh-no", "nn'mb", "ーー"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return // the query parameter refuses text that is not UTF-8
		}
		k := searchKey(s)
		if !utf8.ValidString(k) {
			t.Fatalf("searchKey(%q) = %q, not UTF-8", s, k)
		}
		if again := searchKey(k); again != k {
			t.Errorf("searchKey(%q) = %q, but searchKey(%q) = %q", s, k, k, again)
		}
		r := romajiKey(s)
		if strings.ContainsFunc(r, func(c rune) bool { return c < 'a' || c > 'z' }) {
			t.Errorf("romajiKey(%q) = %q, not only a to z", s, r)
		}
		if again := romajiKey(r); again != r {
			t.Errorf("romajiKey(%q) = %q, but romajiKey(%q) = %q", s, r, r, again)
		}
		searchWords(s)
	})
}
