// Package hensachi holds the domain types shared by the municipality statistics service and the
// face analysis service: the axes and statistics a municipality is described by, the record the
// dataset stores for each municipality, and the meta document that explains the dataset.
//
// Sub-packages depend on this package, never the other way round: ingest reads source files into
// these types, compute ranks them, dataset writes them into the Arrow dataset file, and serve
// answers HTTP calls from it.
package hensachi

import "math"

// Optional is a value that may not exist; the zero value is null.
type Optional[T int64 | float64] struct {
	V     T
	Valid bool
}

// Some returns a present value.
func Some[T int64 | float64](v T) Optional[T] { return Optional[T]{V: v, Valid: true} }

// Prefecture is one of the 47 prefectures.
type Prefecture struct {
	Code string `json:"code"` // two digits
	Name string `json:"name"`
}

// Field describes one axis or statistic: how it is labelled and shown.
type Field struct {
	Key         string
	Label       string
	Unit        string
	Description string
	// Decimals is the number of decimal places a derived value is rounded to; ranks are computed on
	// the rounded value so that two municipalities showing the same figure share a rank.
	Decimals int
	// Direction and Kind are an indicator's (Indicator.Direction, Indicator.Kind): which way is
	// better, which the maps colour by, and whether the figure is a count, which measures size.
	Direction, Kind string
	// ZeroLabel is an indicator's (Indicator.ZeroLabel): what a 0 means, shown beside it.
	ZeroLabel string
}

// LowerIsBetter reports whether the field's best values are its lowest.
func (f Field) LowerIsBetter() bool { return f.Direction == DirectionLowerBetter }

// Axes are the six ranked axes, in the order the API, the dataset and the pages list them.
var Axes = []Field{
	{Key: "young", Label: "若さ", Unit: "%", Decimals: 2, Direction: DirectionHigherBetter, Kind: KindRate,
		Description: "総人口に占める15歳未満人口の割合"},
	{Key: "shops", Label: "買い物・飲食", Unit: "店/1万人", Decimals: 2, Direction: DirectionHigherBetter, Kind: KindRate,
		Description: "人口1万人当たりの小売店数と飲食店数の合計"},
	{Key: "doctor", Label: "医療", Unit: "人/10万人", Decimals: 1, Direction: DirectionHigherBetter, Kind: KindRate,
		Description: "人口10万人当たりの医師数"},
	{Key: "income", Label: "所得", Unit: "万円", Decimals: 1, Direction: DirectionHigherBetter, Kind: KindRate,
		Description: "納税義務者（所得割）1人当たりの課税対象所得"},
	{Key: "inflow", Label: "人口の流入", Unit: "‰", Decimals: 2, Direction: DirectionHigherBetter, Kind: KindRate,
		Description: "人口千人当たりの転入超過数（転入者数−転出者数、日本人移動者）"},
	{Key: "daytime", Label: "昼間人口", Unit: "%", Decimals: 1, Direction: DirectionHigherBetter, Kind: KindRate,
		Description: "夜間人口（常住人口）100に対する昼間人口の比率"},
}

// Stats are the sixteen statistics, in the order the API, the dataset and the pages list them.
var Stats = []Field{
	{Key: "pop", Label: "総人口", Unit: "人", Direction: DirectionNeutral, Kind: KindCount},
	{Key: "area", Label: "面積", Unit: "km²", Decimals: 2, Direction: DirectionNeutral, Kind: KindCount},
	{Key: "density", Label: "人口密度（最新の面積による）", Unit: "人/km²", Decimals: 1, Direction: DirectionNeutral, Kind: KindRate},
	{Key: "old", Label: "高齢化率", Unit: "%", Decimals: 2, Direction: DirectionNeutral, Kind: KindRate},
	{Key: "single", Label: "単独世帯の割合", Unit: "%", Decimals: 2, Direction: DirectionNeutral, Kind: KindRate},
	{Key: "fiscal", Label: "財政力指数", Unit: "", Decimals: 2, Direction: DirectionHigherBetter, Kind: KindIndex},
	{Key: "foreign", Label: "外国人の割合", Unit: "%", Decimals: 2, Direction: DirectionNeutral, Kind: KindRate},
	{Key: "birth", Label: "出生率（日本人人口千人当たり）", Unit: "‰", Decimals: 2, Direction: DirectionHigherBetter, Kind: KindRate},
	{Key: "marry", Label: "婚姻率（日本人人口千人当たり）", Unit: "‰", Decimals: 2, Direction: DirectionNeutral, Kind: KindRate},
	{Key: "nursery", Label: "保育所等の数", Unit: "施設", Direction: DirectionNeutral, Kind: KindCount},
	{Key: "library", Label: "図書館の数", Unit: "館", Direction: DirectionNeutral, Kind: KindCount},
	{Key: "hospital", Label: "一般病院の数", Unit: "施設", Direction: DirectionNeutral, Kind: KindCount},
	{Key: "primary", Label: "第1次産業就業者の割合", Unit: "%", Decimals: 2, Direction: DirectionNeutral, Kind: KindRate},
	{Key: "jobless", Label: "完全失業率", Unit: "%", Decimals: 2, Direction: DirectionLowerBetter, Kind: KindRate},
	{Key: "commute", Label: "他市区町村への通勤者の割合", Unit: "%", Decimals: 2, Direction: DirectionNeutral, Kind: KindRate},
	{Key: "recycle", Label: "ごみのリサイクル率", Unit: "%", Decimals: 1, Direction: DirectionHigherBetter, Kind: KindRate},
}

// AxisIndex returns the position of an axis key in Axes, or -1.
func AxisIndex(key string) int { return fieldIndex(Axes, key) }

// StatIndex returns the position of a statistic key in Stats, or -1.
func StatIndex(key string) int { return fieldIndex(Stats, key) }

func fieldIndex(fields []Field, key string) int {
	for i, f := range fields {
		if f.Key == key {
			return i
		}
	}
	return -1
}

// Score is a municipality's standing on one axis. Hensachi and Rank are valid exactly when Value is.
type Score struct {
	Value    Optional[float64]
	Hensachi float64
	Rank     int
}

// Municipality is one row of the dataset.
type Municipality struct {
	Code       string // five digits
	Name       string
	Kana       string // the reading of Name in hiragana, e.g. さっぽろし
	Prefecture Prefecture
	Scores     []Score             // aligned with Axes
	Stats      []Optional[float64] // aligned with Stats
	Furusato   Furusato
	// PeerGroup is the Code of its 類似団体 by the latest census the dataset classes (Meta.PeerGroups);
	// "" when none classes it.
	PeerGroup string
}

// Furusato holds the hometown-tax-donation (ふるさと納税) figures of one municipality.
type Furusato struct {
	ReceiptsYen     Optional[int64]
	ReceiptsCount   Optional[int64]
	ReceiptsRank    int // valid when ReceiptsYen is
	DeductionsYen   Optional[int64]
	DeductionDonors Optional[int64]
	BalanceYen      Optional[int64] // receipts − deductions
	BalanceRank     int
	// HistoryThousandYen is aligned with Meta.Furusato.History.FiscalYears, oldest first.
	HistoryThousandYen []Optional[int64]
}

// Round rounds half away from zero to the given number of decimals, as every published figure is.
func Round(v float64, decimals int) float64 {
	p := math.Pow10(decimals)
	return math.Round(v*p) / p
}
