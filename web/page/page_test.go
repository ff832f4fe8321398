package page

import (
	"html/template"
	"testing"
)

func TestNowrap(t *testing.T) {
	tests := []struct {
		in   string
		want template.HTML
	}{
		{"3.2 店/1万人", `<span class=nb>3.2 店/1万人</span>`},
		{"店/1万人", `<span class=nb>店/1万人</span>`}, // a unit alone, in brackets
		{"1,234 円（3 位）", `<span class=nb>1,234 円（3 位）</span>`},
		{"0.72", "0.72"}, // a bare number has nowhere to break
		{"-1,234", "-1,234"},
		{"—", "—"},
		{"%", "%"}, // nor has one character
		{"<", "&lt;"},
		{`<b> "1"`, `<span class=nb>&lt;b&gt; &#34;1&#34;</span>`},
	}
	for _, tt := range tests {
		if got := Nowrap(tt.in); got != tt.want {
			t.Errorf("Nowrap(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
