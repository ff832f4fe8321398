package ingest

import (
	"fmt"
	"math"

	"github.com/hensachi/hensachi"
)

// historyYears is the length of the receipts history.
const historyYears = 10

// furusatoTables holds the hometown-tax tables and what the newest fiscal year is.
type furusatoTables struct {
	detail, history, deductions *Table
	year                        int // fiscal year of the receipts and of the donations deducted
	deduction                   DeductionSource
	historyYears                []int
	dataUpdated                 string
}

// newFurusatoTables takes the newest fiscal year of the receipts as the year of the hometown-tax
// figures and checks that the deductions are of that year's donations and that one of the receipts
// files has each year of the history.
func newFurusatoTables(man *Manifest, detail, history, deductions *Table, ded DeductionSource) (*furusatoTables, error) {
	years := detail.FiscalYears(ReceiptsYen)
	if len(years) == 0 {
		return nil, sourceErr(detail.File, 0, ReceiptsYen, "no fiscal year of receipts")
	}
	fs := &furusatoTables{detail: detail, history: history, deductions: deductions, deduction: ded,
		year: years[len(years)-1], dataUpdated: man.FurusatoDataUpdated}
	if ded.FiscalYear != fs.year {
		return nil, fmt.Errorf("hometown tax: receipts are for FY%d (%s) but deductions for donations of FY%d (%s); the balance needs both for the same year",
			fs.year, detail.File, ded.FiscalYear, deductions.File)
	}
	for y := fs.year - historyYears + 1; y <= fs.year; y++ {
		_, inDetail := detail.Years[YearColumn(ReceiptsYen, y)]
		_, inHistory := history.Years[YearColumn(ReceiptsThousandYen, y)]
		if !inDetail && !inHistory {
			return nil, fmt.Errorf("hometown tax: neither %s nor %s has receipts for FY%d, needed for the %d-year history", detail.File, history.File, y, historyYears)
		}
		fs.historyYears = append(fs.historyYears, y)
	}
	return fs, nil
}

// receiptsYen takes a year's receipts from the file in yen where it has the year, since it is
// exact, and from the thousand-yen file otherwise.
func (fs *furusatoTables) receiptsYen(code string, year int) figure {
	if _, ok := fs.detail.Years[YearColumn(ReceiptsYen, year)]; ok {
		return column{t: fs.detail, col: YearColumn(ReceiptsYen, year)}.at(code)
	}
	f := column{t: fs.history, col: YearColumn(ReceiptsThousandYen, year)}.at(code)
	f.v *= 1000
	return f
}

// receiptsThousandYen is receiptsYen in the unit of the published history, rounded half away from
// zero where the source is in yen.
func (fs *furusatoTables) receiptsThousandYen(code string, year int) figure {
	f := fs.receiptsYen(code, year)
	f.v = math.Round(f.v / 1000)
	return f
}

const (
	reportReceipts   = "furusato.receipts.amount_yen"
	reportCount      = "furusato.receipts.count"
	reportDeductions = "furusato.deductions.amount_yen"
	reportDonors     = "furusato.deductions.donors"
	reportBalance    = "furusato.balance.amount_yen"
	reportHistory    = "furusato.history"
	reportCorporate  = "furusato.corporate"
)

func (fs *furusatoTables) municipality(code string, r *Report) hensachi.Furusato {
	var f hensachi.Furusato
	receipts := column{t: fs.detail, col: YearColumn(ReceiptsYen, fs.year)}.at(code)
	count := column{t: fs.detail, col: YearColumn(ReceiptsCount, fs.year)}.at(code)
	deductions := column{t: fs.deductions, col: YearColumn(DeductionsYen, fs.year)}.at(code)
	deductions.v = math.Round(deductions.v) // the source carries fractions of a yen
	f.ReceiptsYen = r.recordInt(reportReceipts, code, receipts)
	f.ReceiptsCount = r.recordInt(reportCount, code, count)
	f.DeductionsYen = r.recordInt(reportDeductions, code, deductions)
	f.DeductionDonors = r.recordInt(reportDonors, code, figure{why: "none of the source files has 控除適用者数 per municipality (総務省's workbooks that do could not be obtained)"})
	f.BalanceYen = r.recordInt(reportBalance, code, combine(receipts, deductions, minus))
	f.HistoryThousandYen = make([]hensachi.Optional[int64], len(fs.historyYears))
	for i, y := range fs.historyYears {
		f.HistoryThousandYen[i] = r.recordInt(fmt.Sprintf("%s[FY%d]", reportHistory, y), code, fs.receiptsThousandYen(code, y))
	}
	r.record(reportCorporate, code, figure{why: "no obtainable source has 企業版ふるさと納税 results per municipality"}, 0)
	return f
}
