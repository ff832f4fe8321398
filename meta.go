package hensachi

// Meta is the document of GET /town/v1/meta. The ingest step writes it into the
// dataset file, so the served meta always describes the data it is served with.
type Meta struct {
	Title          string       `json:"title"`
	Municipalities int          `json:"municipalities"`
	DataUpdated    string       `json:"data_updated"`
	Method         string       `json:"method"`
	Note           string       `json:"note"`
	Source         Link         `json:"source"`
	Axes           []AxisMeta   `json:"axes"`
	Stats          []StatMeta   `json:"stats"`
	Prefectures    []Prefecture `json:"prefectures"`
	Furusato       FurusatoMeta `json:"furusato"`
	// Boundaries is absent from a dataset built without boundary files.
	Boundaries *BoundaryMeta `json:"boundaries,omitempty"`
	// Wards are the designated cities' wards, which the dataset file carries for the name search;
	// the read model takes them out of the meta it serves, whose document does not list them.
	Wards []Ward `json:"wards,omitempty"`
	// PeerGroups are the 類似団体 of each census year the dataset classes, latest year first.
	PeerGroups []PeerGroup `json:"peer_groups,omitempty"`
}

// PeerGroup is one of 総務省's 類似団体: municipalities alike in population and industrial
// structure, within which officials compare their finances. This product derives them from the
// census by 総務省's class boundaries (docs/data.md, 類似団体).
type PeerGroup struct {
	// Code names the group within its census year: designated_city, core_city, special_ward,
	// city-{population class 1–4}-{industry class 0–3}, town-{population class 1–5}-{industry class 0–2}.
	Code string `json:"code"`
	// Name is the group as 総務省 writes it: 政令指定都市, 中核市, 特別区, 都市Ⅱ-3, 町村Ⅴ-0.
	Name string `json:"name"`
	// CensusYear is the census whose population and shares of workers by industry class the members.
	CensusYear int `json:"census_year"`
	// Members are the codes of its municipalities, in code order.
	Members []string `json:"members"`
}

// Ward is a ward of a government-designated city (政令指定都市の区): no municipality of the dataset,
// which counts the city whole, but a name people look for.
type Ward struct {
	Code string `json:"code"` // five digits
	Name string `json:"name"` // without the city's: 港北区
	Kana string `json:"kana"` // without the city's, in hiragana: こうほくく
	City string `json:"city"` // the city's code
}

// Link names a source and where to find it.
type Link struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

// AxisMeta describes one axis and summarises its values over the municipalities that have one.
type AxisMeta struct {
	Key         string  `json:"key"`
	Label       string  `json:"label"`
	Unit        string  `json:"unit"`
	Description string  `json:"description"`
	Source      string  `json:"source"`
	Count       int     `json:"count"`
	Median      float64 `json:"median"`
	Mean        float64 `json:"mean"`
	Min         float64 `json:"min"`
	Max         float64 `json:"max"`
}

// StatMeta describes one statistic.
type StatMeta struct {
	Key    string `json:"key"`
	Label  string `json:"label"`
	Unit   string `json:"unit"`
	Source string `json:"source"`
}

// FurusatoMeta describes the hometown-tax-donation block.
type FurusatoMeta struct {
	DataUpdated string            `json:"data_updated"`
	Receipts    FurusatoSource    `json:"receipts"`
	Deductions  FurusatoTaxSource `json:"deductions"`
	History     FurusatoHistory   `json:"history"`
	Corporate   FurusatoSource    `json:"corporate"`
}

// FurusatoSource names the fiscal year and source of a furusato figure.
type FurusatoSource struct {
	FiscalYear string `json:"fiscal_year"`
	Source     string `json:"source"`
	URL        string `json:"url"`
}

// FurusatoTaxSource names the tax year and source of the resident-tax deductions.
type FurusatoTaxSource struct {
	TaxYear string `json:"tax_year"`
	Source  string `json:"source"`
	URL     string `json:"url"`
}

// FurusatoHistory describes the yearly receipts history.
type FurusatoHistory struct {
	FiscalYears []string `json:"fiscal_years"`
	Unit        string   `json:"unit"`
	Source      string   `json:"source"`
	URL         string   `json:"url"`
}

// BoundaryMeta describes the municipalities' boundaries the maps draw: where they come from, the
// files read (with their hashes) and the credit every map and boundary file must carry. When the
// dataset has no usable boundaries, Unavailable says why and the maps are off; nothing else is.
type BoundaryMeta struct {
	Source      Link           `json:"source"`
	Credit      string         `json:"credit"`
	Files       []BoundaryFile `json:"files"`
	Note        string         `json:"note"`
	Unavailable string         `json:"unavailable,omitempty"`
}

// BoundaryFile is one boundary file read into the dataset.
type BoundaryFile struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
	Detail string `json:"detail"`
}
