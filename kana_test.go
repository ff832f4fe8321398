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
