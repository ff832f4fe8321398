package ingest

import (
	"math"
	"math/big"
	"strconv"
)

// roundHalfAway rounds scale × num ÷ den (den 1 for a sum of items) to decimals places, halves
// away from zero, in exact decimal arithmetic. The figures are decimals as their sources write
// them, and a quotient that is exactly a half in decimal can come out of binary division a hair
// below it (23 ÷ 80 × 100 is 28.749999…, not 28.75), which math.Round would take down; so a
// quotient within a hair of a half is computed again from the decimals.
func roundHalfAway(num, den, scale float64, decimals int) float64 {
	p := math.Pow10(decimals)
	x := num / den * scale * p
	if frac := math.Abs(x - math.Trunc(x)); math.Abs(frac-0.5) > 1e-6 {
		return math.Round(x) / p
	}
	exact := new(big.Rat).Mul(decimalOf(num), decimalOf(scale))
	exact.Quo(exact, decimalOf(den))
	exact.Mul(exact, decimalOf(p))
	negative := exact.Sign() < 0
	exact.Abs(exact).Add(exact, big.NewRat(1, 2))
	whole, _ := new(big.Float).SetInt(new(big.Int).Quo(exact.Num(), exact.Denom())).Float64()
	if negative {
		whole = -whole
	}
	return whole / p
}

// decimalOf is a figure as the decimal it is written as: the shortest decimal that reads back as v.
func decimalOf(v float64) *big.Rat {
	r, _ := new(big.Rat).SetString(strconv.FormatFloat(v, 'g', -1, 64))
	return r
}
