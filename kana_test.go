package hensachi

import "testing"

func TestHiragana(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ｻｯﾎﾟﾛｼ", "さっぽろし"},
		{"ﾁﾖﾀﾞｸ", "ちよだく"},
		{"サッポロシ", "さっぽろし"},
		{"さっぽろし", "さっぽろし"},
		{"ｶﾞｷﾞｸﾞｹﾞｺﾞﾊﾟﾋﾟﾌﾟﾍﾟﾎﾟｳﾞ", "がぎぐげごぱぴぷぺぽゔ"},
		{"ﾄﾞｳﾁｮｳ ｰ", "どうちょう　ー"},
		{"札幌市", "札幌市"},
		{"ABC", "ＡＢＣ"},
	}
	for _, tc := range tests {
		if got := Hiragana(tc.in); got != tc.want {
			t.Errorf("Hiragana(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestRomaji(t *testing.T) {
	tests := []struct{ in, want string }{
		{"さっぽろし", "sapporoshi"},
		{"たからづかし", "takarazukashi"},
		{"ちゅうおうく", "chuuouku"},
		{"おおさかし", "oosakashi"},
		{"とうきょうと", "toukyouto"},
		{"きょうとし", "kyoutoshi"},
		{"じょうえつし", "jouetsushi"},
		{"はっちょうぼり", "hatchoubori"},
		{"しんじゅくく", "shinjukuku"},
		{"ｻｯﾎﾟﾛｼ", "sapporoshi"},
		{"かんおんじし", "kanonjishi"},
		{"ふぁみりー", "famirii"},
		{"札幌", ""},
		{"っ", ""},
	}
	for _, tc := range tests {
		if got := Romaji(tc.in); got != tc.want {
			t.Errorf("Romaji(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
