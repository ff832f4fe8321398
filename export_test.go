package hensachi

// KanjiVariantPairs lets the real data's tests check the variants against the code list's names.
var KanjiVariantPairs = kanjiVariantPairs
