package hensachi

import "strings"

// FoldKanji folds the old forms (旧字体) and variants (異体字) of the kanji in municipal names to one
// form each, so that a name compares equal however a source or a reader writes it: 五條 and 五条,
// 檮原 and 梼原, 塩竈 and 塩釜.
func FoldKanji(s string) string { return kanjiVariants.Replace(s) }

// kanjiVariants are the pairs the code list's names need: each has a character some
// municipality's name is written with (TestKanjiVariantsInNames), officially in the old form
// (五條市, 檜原村, 塩竈市, 飯舘村, 聖籠町) or commonly typed in one (澤 for 沢, 﨑 for 崎, 髙 for 高). 塩釜 is
// no variant of 塩竈 but how the city's name is commonly written, so 竈 folds to 釜.
var kanjiVariants = strings.NewReplacer(kanjiVariantPairs...)

// kanjiVariantPairs are old and new pairs for strings.NewReplacer: the first folds to the second.
var kanjiVariantPairs = []string{
	"條", "条", "檮", "梼", "澤", "沢", "邊", "辺", "邉", "辺", "龍", "竜", "嶋", "島", "嶌", "島",
	"﨑", "崎", "嵜", "崎", "碕", "崎", "籠", "篭", "舘", "館", "濱", "浜", "濵", "浜", "瀨", "瀬",
	"廣", "広", "國", "国", "關", "関", "櫻", "桜", "藏", "蔵", "會", "会", "淺", "浅", "與", "与",
	"繩", "縄", "德", "徳", "惠", "恵", "眞", "真", "曾", "曽", "萬", "万", "驒", "騨", "兒", "児",
	"寳", "宝", "寶", "宝", "峯", "峰", "冨", "富", "髙", "高", "鹽", "塩", "當", "当", "來", "来",
	"壽", "寿", "黑", "黒", "豐", "豊", "渕", "淵", "桧", "檜", "橫", "横", "澁", "渋", "穗", "穂",
	"榮", "栄", "凾", "函", "淸", "清", "靜", "静", "龜", "亀", "莊", "荘", "蘆", "芦", "竈", "釜",
	"鯵", "鰺", "彌", "弥", "禰", "祢", "杤", "栃", "鄕", "郷", "劍", "剣", "檢", "検", "攝", "摂",
	"靑", "青", "樂", "楽", "礪", "砺", "壹", "壱", "藝", "芸", "樣", "様", "桒", "桑", "栁", "柳",
	"冲", "沖",
}
