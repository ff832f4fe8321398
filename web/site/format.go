package site

import (
	"math"
	"strconv"
	"strings"

	"github.com/hensachi/hensachi"
)

// number formats a value with the field's decimals and thousands separators.
func number(v float64, decimals int) string {
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	out := groupThousands(intPart)
	if frac != "" {
		out += "." + frac
	}
	return out
}

func withUnit(v hensachi.Optional[float64], f hensachi.Field) string {
	if !v.Valid {
		return "—"
	}
	s := strings.TrimSpace(number(v.V, f.Decimals) + " " + f.Unit)
	if v.V == 0 && f.ZeroLabel != "" {
		s += "（" + f.ZeroLabel + "）"
	}
	return s
}

// signedNumber writes a change with its sign, + for an increase, as number writes the digits.
func signedNumber(v float64, decimals int) string {
	s := number(v, decimals)
	if v > 0 && strings.Trim(s, "0.,") != "" {
		return "+" + s
	}
	if strings.Trim(s, "-0.,") == "" {
		return strings.TrimPrefix(s, "-") // a change that rounds to nothing has no sign
	}
	return s
}

// integer writes a count or a rank with thousands separators, as every page writes 1,741.
func integer(n int) string { return groupThousands(strconv.Itoa(n)) }

func yen(v hensachi.Optional[int64]) string {
	if !v.Valid {
		return "—"
	}
	return groupThousands(strconv.FormatInt(v.V, 10)) + " 円"
}

// manYen writes an amount in 万円, as municipal budgets are read, rounded to the nearest: a
// comparison of six keeps each column to the width of a 万円 figure (25,667,711,642 円 is
// 2,566,771 万円).
func manYen(v hensachi.Optional[int64]) string {
	if !v.Valid {
		return "—"
	}
	return groupThousands(strconv.FormatFloat(math.Round(float64(v.V)/1e4), 'f', 0, 64)) + " 万円"
}

func count(v hensachi.Optional[int64], unit string) string {
	if !v.Valid {
		return "—"
	}
	return groupThousands(strconv.FormatInt(v.V, 10)) + " " + unit
}

// groupThousands puts commas into a run of digits, keeping a leading minus.
func groupThousands(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// compactYen writes an amount as 億円 or 万円 with at most one decimal, for chart labels.
func compactYen(v int64) string {
	switch {
	case v >= 100_000_000 || v <= -100_000_000:
		return strconv.FormatFloat(float64(v)/1e8, 'f', 1, 64) + "億"
	case v >= 10_000 || v <= -10_000:
		return strconv.FormatFloat(float64(v)/1e4, 'f', 0, 64) + "万"
	}
	return strconv.FormatInt(v, 10)
}

// shortEra shortens 平成27年度 to H27 and 令和元年度 to R1 for the chart's labels.
func shortEra(year string) string {
	s := strings.TrimSuffix(year, "年度")
	s = strings.Replace(s, "元", "1", 1)
	s = strings.Replace(s, "平成", "H", 1)
	return strings.Replace(s, "令和", "R", 1)
}
