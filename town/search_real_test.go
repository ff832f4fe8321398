package town_test

import (
	"strings"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/realdata"
)

// TestRealSearch: the real code list's municipalities found the ways people type them — Hepburn and
// Kunrei, long vowels written any way, ヶ written ケ, ヵ or が, old and variant kanji, ず for づ,
// full and half width, codes with and without their check digit, the prefecture by its reading.
func TestRealSearch(t *testing.T) {
	c := realdata.Catalog(t, "https://hensachi.example")
	tests := []struct {
		query string
		first string // the best hit's code
		min   int    // at least this many hits
	}{
		// romaji
		{"takarazuka", "28214", 1}, // 宝塚市
		{"Takarazuka-shi", "28214", 1},
		{"takaraduka", "28214", 1}, // づ in Nihon-shiki
		{"ｔａｋａｒａｚｕｋａ", "28214", 1},
		{"osaka", "27100", 2}, // 大阪市 before the prefecture's others and 大阪狭山市
		{"oosaka", "27100", 2},
		{"ōsaka", "27100", 2},
		{"Ōsaka", "27100", 43},
		{"tokyo", "13101", 62}, // 東京都's 62 municipalities
		{"Tōkyō", "13101", 62},
		{"toukyou", "13101", 62},
		{"kochi", "39201", 34}, // 高知市 (こうち), the prefecture's 34
		{"Kōchi", "39201", 34},
		{"shinjuku", "13104", 1},
		{"sinzyuku", "13104", 1},
		{"hombetsu", "01646", 1}, // 本別町 (ほんべつ) in the older Hepburn's m before b
		{"Ōita", "44201", 18},    // 大分市, then 大分県's others
		{"OITA", "44201", 18},
		{"Ooita", "44201", 18},
		{"O\u0304ita", "44201", 18}, // the macron as a combining mark
		{"Kyōto", "26100", 26},
		{"kyouto", "26100", 26},
		{"Hyōgo", "28100", 41},
		{"Ōtsu-shi", "25201", 1}, // Ōtsu alone starts 大槌町 (おおつち) too, which comes first
		{"Ohtsushi", "25201", 1},
		{"Ōmihachiman", "25204", 1},
		{"Chōshi", "12202", 1},
		{"Tōgane", "12213", 1},
		{"Ōdate", "05204", 1},
		{"Ohdate", "05204", 1},
		{"Kōfu", "19201", 1},
		{"Ōme", "13205", 1},
		{"Yūbari", "01209", 1},
		{"kaduno", "05209", 1}, // 鹿角市 (かづの)
		{"numadu", "22203", 1}, // 沼津市
		{"ojiya", "15208", 1},  // 小千谷市 (おぢや)
		{"odiya", "15208", 1},
		{"tokyo chiyoda", "13101", 1},
		// kana
		{"たからづか", "28214", 1},
		{"たからずか", "28214", 1},
		{"ﾀｶﾗｽﾞｶ", "28214", 1},
		{"タカラヅカ", "28214", 1},
		{"とうきょう", "13101", 62},
		{"おおさか", "27100", 43},
		{"ひょうご たからずか", "28214", 1},
		{"かずの", "05209", 1},
		{"あいずわかまつ", "07202", 1},
		{"きさらず", "12206", 1},
		{"こうずしま", "13364", 1},
		{"おじや", "15208", 1},
		{"うおず", "16204", 1},
		{"あずみの", "20220", 1},
		{"ぬまず", "22203", 1},
		{"やいず", "22212", 1},
		{"まいずる", "26202", 1},
		{"いいずか", "40205", 1},
		{"おじか", "42383", 1},
		// ヶ, ケ, ヵ, が
		{"鎌ヶ谷", "12224", 1}, // 鎌ケ谷市
		{"鎌ｹ谷", "12224", 1},
		{"鎌が谷", "12224", 1},
		{"竜ヶ崎", "08208", 1}, // 龍ケ崎市
		{"茅ケ崎", "14207", 1}, // 茅ヶ崎市
		{"関ヶ原", "21362", 1}, // 関ケ原町
		{"関が原", "21362", 1},
		{"金ヶ崎", "03381", 1},
		{"袖ヶ浦", "12229", 1},
		{"袖が浦", "12229", 1},
		{"外ケ浜", "02307", 1},
		{"鯵ケ沢", "02321", 1}, // 鰺ヶ沢町
		{"六ケ所", "02411", 1},
		{"六ヵ所", "02411", 1},
		{"七ケ宿", "04302", 1},
		{"七ケ浜", "04404", 1},
		{"鶴ケ島", "11241", 1},
		{"鶴が島", "11241", 1},
		{"青ケ島", "13402", 1},
		{"駒ケ根", "20210", 1},
		{"吉野ケ里", "41327", 1},
		{"五ケ瀬", "45443", 1},
		// old and variant kanji, either way
		{"五条", "29207", 1}, // 五條市
		{"下条村", "20411", 1},
		{"四条畷", "27229", 1},
		{"檮原", "39405", 1}, // 梼原町
		{"桧原村", "13307", 1},
		{"桧枝岐", "07364", 1},
		{"塩釜", "04203", 1}, // 塩竈市
		{"飯館村", "07564", 1},
		{"聖篭", "15307", 1},
		{"竜郷", "46527", 1},
		{"天竜村", "20413", 1},
		{"雨龍", "01436", 1},
		{"剣渕", "01465", 1},
		{"飛驒", "21217", 1},
		{"藤澤", "14205", 1},
		{"軽井澤", "20321", 1},
		{"田邊", "30206", 1},
		{"野邉地", "02401", 1},
		{"德之島", "46530", 1},
		{"廣島市", "34100", 1},
		{"櫻井", "29206", 1},
		{"寳塚", "28214", 1},
		{"冨岡市", "10210", 1},
		{"髙崎", "10202", 1},
		{"凾館", "01202", 1},
		{"蘆屋市", "28206", 1},
		{"澁谷", "13113", 1},
		{"橫濱市", "14100", 1},
		{"瑞穗市", "21216", 1},
		{"靜岡市", "22100", 1},
		{"淸瀬", "13221", 1},
		{"大舘", "05204", 1},
		{"濱松", "22130", 1},
		{"國立", "13215", 1},
		{"會津若松", "07202", 1},
		{"湯淺", "30361", 1},
		{"與謝野", "26465", 1},
		{"沖繩市", "47211", 1},
		{"惠那", "21210", 1},
		{"眞庭", "33214", 1},
		{"曾於", "46217", 1},
		{"伊萬里", "41205", 1},
		{"鹿兒島市", "46201", 1},
		{"黑部", "16207", 1},
		{"豐田市", "23211", 1},
		{"由利本莊", "05210", 1},
		{"彌彦", "15342", 1},
		{"美禰", "35213", 1},
		{"杤木市", "09203", 1},
		{"宇檢", "46524", 1},
		{"攝津", "27224", 1},
		{"靑森市", "02201", 1},
		{"甘樂", "10384", 1},
		{"南礪", "16210", 1},
		{"壹岐", "42210", 1},
		{"安藝市", "39203", 1},
		{"樣似", "01608", 1},
		{"桒名", "24205", 1},
		{"栁川", "40207", 1},
		{"龜岡", "26206", 1},
		{"大山﨑", "26303", 1},
		{"瀨戸市", "23204", 1},
		{"藏王", "04301", 1},
		{"當別", "01303", 1},
		{"壽都", "01392", 1},
		{"\ufa19戸市", "28100", 1}, // 神戸市 with the compatibility ideograph 神
		{"兵庫県 寳塚", "28214", 1},
		// the designated cities' wards find their city
		{"横浜市港北区", "14100", 1},
		{"港北区", "14100", 1},
		{"港北", "14100", 1},
		{"こうほくく", "14100", 1},
		{"kohokuku", "14100", 1}, // kohoku alone finds 江北町 (こうほくまち) first
		{"神奈川県 港北区", "14100", 1},
		{"14109", "14100", 1}, // 港北区's code
		{"北区", "13117", 12},   // 東京都北区, a municipality, then the cities with a 北区
		{"中央区", "13102", 2},   // 東京都中央区, then the cities with a 中央区
		{"名古屋市中村区", "23100", 1},
		{"さいたま市浦和区", "11100", 1},
		{"浦和", "11100", 1},
		// codes
		{"28214", "28214", 1},
		{"282146", "28214", 1},
		{"２８２１４", "28214", 1},
		{"13101", "13101", 1},
		{"131016", "13101", 1},
		{"011002", "01100", 1},
		{"141003", "14100", 1},
		{"442011", "44201", 1},
		{"213624", "21362", 1},
		{"292079", "29207", 1},
		{"394050", "39405", 1},
		{"042030", "04203", 1},
		{"462012", "46201", 1},
		{"012025", "01202", 1},
		{"472115", "47211", 1},
	}
	for _, tt := range tests {
		got := c.Search(tt.query, 100)
		if len(got) < tt.min || (tt.first != "" && (len(got) == 0 || got[0].Code != tt.first)) {
			t.Errorf("search %q: %d hits, first %q; want at least %d, first %s", tt.query, len(got), label(got), tt.min, tt.first)
		}
	}
	// a code is one municipality; a wrong check digit or a code of none finds nothing
	for _, query := range []string{"282145", "99999", "2821", "13101 28214"} {
		if got := c.Search(query, 100); len(got) != 0 {
			t.Errorf("search %q: %d hits, first %q; want none", query, len(got), label(got))
		}
	}
	if got := c.Search("28214", 100); len(got) != 1 {
		t.Errorf("search 28214: %d hits, want 1", len(got))
	}
	// exactly these many: a prefecture and name written together match from their start, so that
	// 京都 is not found in 東京都 nor kyoto in tokyo-toshima (豊島区), nor yokoma in tokyo-komae
	// (狛江市); the prefecture with or without the reading of 都府県; English designations
	for _, tt := range []struct {
		query string
		want  int
	}{
		{"京都", 26}, {"kyoto", 26}, {"きょうと", 26}, {"yokohma", 0},
		{"とうきょうと", 62}, {"tokyoto", 62}, {"Tokyo-to", 62}, {"おおさかふ", 43}, {"kanagawaken", 33}, {"Kanagawa Prefecture", 33},
		{"ほっかいどう", 179}, {"東京都千代田区", 1}, {"都千代田", 0},
		{"Shinjuku City", 1}, {"Yubari City", 1}, {"Ogasawara Village", 1}, {"Yoshinogari Town", 1},
	} {
		if got := c.Search(tt.query, 1000); len(got) != tt.want {
			t.Errorf("search %q: %d hits (%q), want %d", tt.query, len(got), label(got), tt.want)
		}
	}
}

// TestRealWards: a ward that finds its city says so, and only when the city is found by the ward.
func TestRealWards(t *testing.T) {
	c := realdata.Catalog(t, "https://hensachi.example")
	tests := []struct {
		query string
		want  []string // ward name は city name の区
	}{
		{"横浜市港北区", []string{"港北区は横浜市の区"}},
		{"港北区", []string{"港北区は横浜市の区"}},
		{"こうほく", []string{"港北区は横浜市の区"}},
		{"kohoku", []string{"港北区は横浜市の区"}},
		{"14109", []string{"港北区は横浜市の区"}},
		{"横浜市", nil}, // the city by its own name
		{"かながわ 港北", []string{"港北区は横浜市の区"}},
		{"大阪府 港北区", nil}, // no ward of that name in 大阪府
		{"宝塚", nil},
		// a former city by its name, now a ward of that name or split into wards by direction
		{"浦和市", []string{"浦和区はさいたま市の区"}},
		{"清水市", []string{"清水区は静岡市の区"}},
		{"北九州市 小倉市", []string{"小倉北区は北九州市の区", "小倉南区は北九州市の区"}},
		{"中央市", nil}, // 山梨県中央市 itself, not the wards named 中央区
		{"与野市", nil}, // now さいたま市中央区: a name no ward keeps
	}
	for _, tt := range tests {
		var got []string
		for _, h := range c.Wards(tt.query) {
			got = append(got, h.Ward.Name+"は"+h.City.Name+"の区")
			if !hasCode(c.Search(tt.query, 100), h.City.Code) {
				t.Errorf("wards %q: %s, which search does not find", tt.query, h.City.Name)
			}
		}
		if strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("wards %q = %q, want %q", tt.query, got, tt.want)
		}
	}
	if c.Meta.Wards != nil {
		t.Errorf("the catalog's meta lists %d wards; the meta served does not", len(c.Meta.Wards))
	}
	if n := len(c.Wards("北区")); n < 10 {
		t.Errorf("wards 北区: %d, want one for each city with a 北区", n)
	}
}

// TestRealSuggest: a kana or romaji query one letter off a reading proposes it (もしかして).
func TestRealSuggest(t *testing.T) {
	c := realdata.Catalog(t, "https://hensachi.example")
	tests := []struct{ query, want string }{
		{"たからずく", "28214"},
		{"takarazka", "28214"},
		{"yokohana", "14100"},
		{"しんじゅぐ", "13104"},
		{"sapoporo", "01100"},
		{"ﾖｺﾊﾏﾏ", ""},   // finds 横浜市: nothing to suggest
		{"宝塚", ""},      // found
		{"ぬ", ""},       // too short to guess
		{"xqzwv", ""},   // nothing near
		{"塚宝", ""},      // kanji: not a reading
		{"たからずく し", ""}, // two words
	}
	for _, tt := range tests {
		got := c.Suggest(tt.query)
		switch {
		case tt.want == "" && len(got) > 0:
			t.Errorf("suggest %q: %s, want nothing", tt.query, label(got))
		case tt.want != "" && !hasCode(got, tt.want):
			t.Errorf("suggest %q: %s, want %s among them", tt.query, label(got), tt.want)
		}
	}
}

func label(ms []*hensachi.Municipality) string {
	if len(ms) == 0 {
		return ""
	}
	return ms[0].Code + " " + ms[0].Name
}

func hasCode(ms []*hensachi.Municipality, code string) bool {
	for _, m := range ms {
		if m.Code == code {
			return true
		}
	}
	return false
}
