package ingest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hensachi/hensachi"
)

// The lists of financial indicators of FY2005–FY2015 name municipalities as they were in that year:
// 1,844 of them in FY2005, 1,741 from FY2014. A figure of a year belongs to a municipality of the
// code list only where its territory has not changed since; mergers and renames below say where it
// has. Each is checked against the lists when they are read (checkChanges): a municipality a
// merger absorbed must be in every list before the merger's fiscal year and in none from it, and a
// list row that names no municipality of the code list must be one that a merger absorbed. Changes
// of a boundary between municipalities that go on (境界変更) are not territory changes here.

// merger is a municipality of the code list that took in others of its prefecture (編入) or was
// formed from them (新設合併, under the name of one of them or a new one), as 総務省「市町村合併資料」
// records it.
type merger struct {
	code     string   // the municipality of the code list
	date     string   // effective, YYYY-MM-DD
	absorbed []string // the municipalities that ceased to exist in it, as the lists name them
}

// mergers are every merger from FY2006 on: the FY2005 list already shows the municipalities of
// 2006-03-31.
var mergers = []merger{
	{"01559", "2009-10-05", []string{"上湧別町"}},                                     // 湧別町
	{"03202", "2010-01-01", []string{"川井村"}},                                      // 宮古市
	{"03209", "2011-09-26", []string{"藤沢町"}},                                      // 一関市
	{"04205", "2009-09-01", []string{"本吉町"}},                                      // 気仙沼市
	{"07201", "2008-07-01", []string{"飯野町"}},                                      // 福島市
	{"07214", "2007-01-01", []string{"本宮町", "白沢村"}},                               // 本宮市
	{"09201", "2007-03-31", []string{"上河内町", "河内町"}},                              // 宇都宮市
	{"09203", "2010-03-29", []string{"大平町", "藤岡町", "都賀町"}},                        // 栃木市
	{"09203", "2011-10-01", []string{"西方町"}},                                      // 栃木市
	{"09203", "2014-04-05", []string{"岩舟町"}},                                      // 栃木市
	{"09209", "2009-03-23", []string{"二宮町"}},                                      // 真岡市
	{"10201", "2009-05-05", []string{"富士見村"}},                                     // 前橋市
	{"10202", "2006-10-01", []string{"榛名町"}},                                      // 高崎市
	{"10202", "2009-06-01", []string{"吉井町"}},                                      // 高崎市
	{"10421", "2010-03-28", []string{"六合村"}},                                      // 中之条町
	{"11202", "2007-02-13", []string{"江南町"}},                                      // 熊谷市
	{"11203", "2011-10-11", []string{"鳩ケ谷市"}},                                     // 川口市
	{"11210", "2010-03-23", []string{"騎西町", "北川辺町", "大利根町"}},                      // 加須市
	{"11232", "2010-03-23", []string{"菖蒲町", "栗橋町", "鷲宮町"}},                        // 久喜市
	{"12231", "2010-03-23", []string{"印旛村", "本埜村"}},                               // 印西市
	{"14150", "2007-03-11", []string{"城山町", "藤野町"}},                               // 相模原市
	{"15202", "2010-03-31", []string{"川口町"}},                                      // 長岡市
	{"15212", "2008-04-01", []string{"荒川町", "神林村", "朝日村", "山北町"}},                 // 村上市
	{"19211", "2006-08-01", []string{"芦川村"}},                                      // 笛吹市
	{"19368", "2010-03-08", []string{"増穂町", "鰍沢町"}},                               // 富士川町
	{"20201", "2010-01-01", []string{"信州新町", "中条村"}},                              // 長野市
	{"20202", "2010-03-31", []string{"波田町"}},                                      // 松本市
	{"20407", "2009-03-31", []string{"清内路村"}},                                     // 阿智村
	{"22100", "2008-11-01", []string{"由比町"}},                                      // 静岡市
	{"22207", "2010-03-23", []string{"芝川町"}},                                      // 富士宮市
	{"22209", "2008-04-01", []string{"川根町"}},                                      // 島田市
	{"22210", "2008-11-01", []string{"富士川町"}},                                     // 富士市
	{"22212", "2008-11-01", []string{"大井川町"}},                                     // 焼津市
	{"22214", "2009-01-01", []string{"岡部町"}},                                      // 藤枝市
	{"22221", "2010-03-23", []string{"新居町"}},                                      // 湖西市
	{"23207", "2008-01-15", []string{"音羽町", "御津町"}},                               // 豊川市
	{"23207", "2010-02-01", []string{"小坂井町"}},                                     // 豊川市
	{"23213", "2011-04-01", []string{"一色町", "吉良町", "幡豆町"}},                        // 西尾市
	{"23233", "2009-10-01", []string{"春日町"}},                                      // 清須市
	{"23235", "2006-04-01", []string{"弥富町", "十四山村"}},                              // 弥富市
	{"23237", "2010-03-22", []string{"七宝町", "美和町", "甚目寺町"}},                       // あま市
	{"25203", "2010-01-01", []string{"虎姫町", "湖北町", "高月町", "木之本町", "余呉町", "西浅井町"}}, // 長浜市
	{"25204", "2010-03-21", []string{"安土町"}},                                      // 近江八幡市
	{"26214", "2007-03-12", []string{"山城町", "木津町", "加茂町"}},                        // 木津川市
	{"32201", "2011-08-01", []string{"東出雲町"}},                                     // 松江市
	{"32203", "2011-10-01", []string{"斐川町"}},                                      // 出雲市
	{"33100", "2007-01-22", []string{"建部町", "瀬戸町"}},                               // 岡山市
	{"35203", "2010-01-16", []string{"阿東町"}},                                      // 山口市
	{"35213", "2008-03-21", []string{"美東町", "秋芳町"}},                               // 美祢市
	{"39201", "2008-01-01", []string{"春野町"}},                                      // 高知市
	{"40210", "2006-10-01", []string{"上陽町"}},                                      // 八女市
	{"40210", "2010-02-01", []string{"黒木町", "立花町", "矢部村", "星野村"}},                 // 八女市
	{"40229", "2007-01-29", []string{"瀬高町", "山川町", "高田町"}},                        // みやま市
	{"40230", "2010-01-01", []string{"前原市", "二丈町", "志摩町"}},                        // 糸島市
	{"41201", "2007-10-01", []string{"川副町", "東与賀町", "久保田町"}},                      // 佐賀市
	{"42202", "2010-03-31", []string{"江迎町", "鹿町町"}},                               // 佐世保市
	{"43100", "2008-10-06", []string{"富合町"}},                                      // 熊本市
	{"43100", "2010-03-23", []string{"城南町", "植木町"}},                               // 熊本市
	{"45201", "2010-03-23", []string{"清武町"}},                                      // 宮崎市
	{"45203", "2007-03-31", []string{"北川町"}},                                      // 延岡市
	{"45204", "2009-03-30", []string{"北郷町", "南郷町"}},                               // 日南市
	{"45205", "2010-03-23", []string{"野尻町"}},                                      // 小林市
	{"46223", "2007-12-01", []string{"頴娃町", "知覧町", "川辺町"}},                        // 南九州市
	{"46224", "2008-11-01", []string{"大口市", "菱刈町"}},                               // 伊佐市
	{"46225", "2010-03-23", []string{"加治木町", "姶良町", "蒲生町"}},                       // 姶良市
	{"46505", "2007-10-01", []string{"上屋久町", "屋久町"}},                              // 屋久島町
}

// rename is a municipality that changed its name or type (町→市) but not its territory: its
// figures under the old name or code are its own.
type rename struct {
	code, date       string
	oldName, oldCode string // oldCode where a list of FY2011 or later, or SSDSE-A, writes the old one
}

var renames = []rename{
	{"03216", "2014-01-01", "滝沢村", "03305"},
	{"04216", "2016-10-10", "富谷町", "04423"},
	{"11246", "2012-10-01", "白岡町", "11445"},
	{"12239", "2013-01-01", "大網白里町", "12402"},
	{"17212", "2011-11-11", "野々市町", ""},
	{"23236", "2010-01-04", "三好町", ""},
	{"23238", "2012-01-04", "長久手町", ""},
	{"28221", "2019-05-01", "篠山市", ""},
	{"30209", "2006-04-01", "岩出町", ""},
	{"40231", "2018-10-01", "那珂川町", "40305"},
	{"43100", "2012-04-01", "", "43201"}, // 熊本市 became a designated city
}

// successors maps a code that older sources give a municipality to its code in the code list,
// where only the name, type or status changed, not the territory: 那珂川町 (40305) became 那珂川市
// (40231) on 2018-10-01, and the SSDSE-A editions of 2018 and 2019 and the finance lists of FY2016
// and FY2017 still list 40305.
var successors = func() map[string]string {
	m := map[string]string{}
	for _, r := range renames {
		if r.oldCode != "" {
			m[r.oldCode] = r.code
		}
	}
	return m
}()

// fiscalYearOf is the fiscal year (April to March) a date falls in.
func fiscalYearOf(date string) int {
	y, _ := strconv.Atoi(date[:4])
	if date[5:7] < "04" {
		return y - 1
	}
	return y
}

// changedAfter says why a municipality's figure of a fiscal year is not its own, "" when it is:
// the mergers after that year, which changed its territory.
func changedAfter(code string, fiscalYear int) string {
	var after []string
	for _, m := range mergers {
		if m.code == code && fiscalYearOf(m.date) > fiscalYear {
			after = append(after, fmt.Sprintf("%s on %s", strings.Join(m.absorbed, "・"), m.date))
		}
	}
	if after == nil {
		return ""
	}
	return fmt.Sprintf("territory changed after FY%d: merged with %s", fiscalYear, strings.Join(after, "; "))
}

// nameVariants are the characters besides the kanji's variants (hensachi.FoldKanji) that the lists
// and the code list write differently in one name (鳩ケ谷市 and 鳩ヶ谷市), and the spaces some put in.
var nameVariants = strings.NewReplacer("ヶ", "ケ", "ヵ", "カ", " ", "", "　", "")

// foldName folds a name for comparing it across the lists: 下条村 and 下條村, 鳩ケ谷市 and 鳩ヶ谷市, 桧原村
// and 檜原村 are one.
func foldName(name string) string { return hensachi.FoldKanji(nameVariants.Replace(name)) }

func nameKey(pref, name string) string {
	return foldName(pref) + "/" + foldName(name)
}
