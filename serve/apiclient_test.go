package serve_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/hensachi/hensachi/internal/testrig/apiclient"
)

// TestGeneratedClient runs every operation of openapi.json through the client oapi-codegen
// generates from it (internal/testrig/apiclient) against a live server: the document has to be one that
// generators understand, and the answers have to decode into what they generate.
func TestGeneratedClient(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, withFaces(t))
	ctx := t.Context()
	newClient := func(key string) *apiclient.ClientWithResponses {
		c, err := apiclient.NewClientWithResponses(ts.http.URL, apiclient.WithHTTPClient(ts.http.Client()),
			apiclient.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
				if key != "" {
					r.Header.Set("X-API-Key", key)
				}
				return nil
			}))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := newClient(ts.proKey)
	check := func(op string, err error, status, want int) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		if status != want {
			t.Fatalf("%s: status %d, want %d", op, status, want)
		}
	}

	m, err := c.GetMunicipalityWithResponse(ctx, "13101", nil)
	check("getMunicipality", err, m.StatusCode(), http.StatusOK)
	if d := m.JSON200.Data; d.Code != "13101" || d.Prefecture.Code != "13" || d.Scores.Young.RankTotal == 0 ||
		len(d.Furusato.History) != 10 || d.Furusato.Corporate != nil || m.Headers200.ETag == nil {
		t.Errorf("getMunicipality: %+v", m.JSON200.Data)
	}
	same, err := c.GetMunicipalityWithResponse(ctx, "13101", &apiclient.GetMunicipalityParams{IfNoneMatch: m.Headers200.ETag})
	check("getMunicipality If-None-Match", err, same.StatusCode(), http.StatusNotModified)
	if *same.Headers304.ETag != *m.Headers200.ETag || same.Headers304.RateLimit == nil {
		t.Errorf("304 headers %+v", same.Headers304)
	}
	missing, err := c.GetMunicipalityWithResponse(ctx, "99999", nil)
	check("getMunicipality unknown", err, missing.StatusCode(), http.StatusNotFound)
	if p := missing.ApplicationproblemJSON404; p.Code != apiclient.ProblemCodeNotFound || p.RequestId == "" {
		t.Errorf("404 problem %+v", p)
	}

	pref := "13"
	list, err := c.ListMunicipalitiesWithResponse(ctx, &apiclient.ListMunicipalitiesParams{Pref: &pref})
	check("listMunicipalities", err, list.StatusCode(), http.StatusOK)
	if l := list.JSON200.Data; l.Prefecture == nil || l.Prefecture.Code != "13" || l.Total != len(l.Items) || l.Total < 60 {
		t.Errorf("listMunicipalities pref=13: %+v", l.Prefecture)
	}

	// every axis, both orders: the operation that panicked before the enums had types
	for _, axis := range []apiclient.AxisKey{apiclient.AxisKeyYoung, apiclient.AxisKeyShops, apiclient.AxisKeyDoctor,
		apiclient.AxisKeyIncome, apiclient.AxisKeyInflow, apiclient.AxisKeyDaytime} {
		for _, order := range []apiclient.SortOrder{apiclient.SortOrderDesc, apiclient.SortOrderAsc} {
			limit, offset := 5, 2
			r, err := c.GetRankingWithResponse(ctx, axis, &apiclient.GetRankingParams{Order: &order, Pref: &pref, Limit: &limit, Offset: &offset})
			check("getRanking "+string(axis), err, r.StatusCode(), http.StatusOK)
			if d := r.JSON200.Data; d.Axis.Key != axis || d.Order != order || len(d.Items) != 5 || d.Offset != 2 || d.Prefecture.Code != "13" {
				t.Errorf("getRanking %s %s: %+v", axis, order, d)
			}
		}
	}
	tooMany := 500
	bad, err := c.GetRankingWithResponse(ctx, apiclient.AxisKeyYoung, &apiclient.GetRankingParams{Limit: &tooMany})
	check("getRanking limit=500", err, bad.StatusCode(), http.StatusBadRequest)
	if p := bad.ApplicationproblemJSON400; p.Code != apiclient.ProblemCodeInvalidParameter || p.Param == nil || *p.Param != "limit" ||
		bad.Headers400.RateLimit == nil {
		t.Errorf("400 problem %+v, headers %+v", p, bad.Headers400)
	}

	q := "たからづか"
	found, err := c.ListMunicipalitiesWithResponse(ctx, &apiclient.ListMunicipalitiesParams{Q: &q})
	check("listMunicipalities q", err, found.StatusCode(), http.StatusOK)
	if l := found.JSON200.Data; l.Total != 1 || l.Items[0].Code != "28214" {
		t.Errorf("listMunicipalities q=%s: %+v", q, l.Items)
	}

	limit := 5
	similar, err := c.GetSimilarMunicipalitiesWithResponse(ctx, "28214", &apiclient.GetSimilarMunicipalitiesParams{Limit: &limit})
	check("getSimilarMunicipalities", err, similar.StatusCode(), http.StatusOK)
	if d, err := similar.JSON200.Data.AsSimilarList(); err != nil || len(d.Items) != 5 || d.Items[0].Code == "28214" || d.Items[0].Distance > d.Items[4].Distance || len(d.Items[0].Differences) == 0 {
		t.Errorf("getSimilarMunicipalities: %+v", d)
	}
	measures := "income,births_per_1000@2020"
	measured, err := c.GetSimilarMunicipalitiesWithResponse(ctx, "28214", &apiclient.GetSimilarMunicipalitiesParams{Limit: &limit, Measures: &measures})
	check("getSimilarMunicipalities measures", err, measured.StatusCode(), http.StatusOK)
	if d, err := measured.JSON200.Data.AsMeasuredSimilarList(); err != nil || len(d.Items) != 5 || len(d.Measures) != 2 || d.Items[0].Differences[0].Measure == "" {
		t.Errorf("getSimilarMunicipalities measures: %+v, %v", d, err)
	}
	unknown, err := c.GetSimilarMunicipalitiesWithResponse(ctx, "99999", nil)
	check("getSimilarMunicipalities unknown", err, unknown.StatusCode(), http.StatusNotFound)

	compared, err := c.CompareMunicipalitiesWithResponse(ctx, &apiclient.CompareMunicipalitiesParams{Codes: "28214,13101"})
	check("compareMunicipalities", err, compared.StatusCode(), http.StatusOK)
	if d := compared.JSON200.Data; len(d.Items) != 2 || d.Items[0].Code != "28214" || d.Medians.Stats.Pop == nil || d.Medians.Scores.Income == nil {
		t.Errorf("compareMunicipalities: %d items, medians %+v", len(d.Items), d.Medians)
	}
	one, err := c.CompareMunicipalitiesWithResponse(ctx, &apiclient.CompareMunicipalitiesParams{Codes: "28214"})
	check("compareMunicipalities one code", err, one.StatusCode(), http.StatusBadRequest)
	if p := one.ApplicationproblemJSON400; p.Param == nil || *p.Param != "codes" {
		t.Errorf("compare 400 problem %+v", p)
	}

	indicators := "fiscal_strength"
	withIndicators, err := c.CompareMunicipalitiesWithResponse(ctx, &apiclient.CompareMunicipalitiesParams{Codes: "28214,13101", Indicators: &indicators})
	check("compareMunicipalities indicators", err, withIndicators.StatusCode(), http.StatusOK)
	if d := withIndicators.JSON200.Data; d.Indicators == nil || len(*d.Indicators) != 1 || (*d.Indicators)[0].Items[1].Code != "13101" {
		t.Errorf("compareMunicipalities indicators: %+v", d.Indicators)
	}

	group := apiclient.GroupFilter("財政")
	catalogue, err := c.ListIndicatorsWithResponse(ctx, &apiclient.ListIndicatorsParams{Group: &group})
	check("listIndicators", err, catalogue.StatusCode(), http.StatusOK)
	if d := catalogue.JSON200.Data; d.Total != len(d.Items) || d.Total < 10 || d.Items[0].Latest == nil || len(d.Items[0].Years) == 0 {
		t.Errorf("listIndicators: %+v", d)
	}
	year := 2020
	ranking, err := c.GetIndicatorRankingWithResponse(ctx, "fiscal_strength", &apiclient.GetIndicatorRankingParams{Year: &year, Pref: &pref, Limit: &limit})
	check("getIndicatorRanking", err, ranking.StatusCode(), http.StatusOK)
	if d, err := ranking.JSON200.Data.AsIndicatorRanking(); err != nil || d.Year != 2020 || len(d.Items) != 5 || d.Items[0].Year != 2020 || d.Indicator.Key != "fiscal_strength" {
		t.Errorf("getIndicatorRanking: %+v, %v", d, err)
	}
	from, to := 2015, 2020
	changed, err := c.GetIndicatorRankingWithResponse(ctx, "fiscal_strength", &apiclient.GetIndicatorRankingParams{From: &from, To: &to, Pref: &pref, Limit: &limit})
	check("getIndicatorRanking (change)", err, changed.StatusCode(), http.StatusOK)
	if d, err := changed.JSON200.Data.AsIndicatorChangeRanking(); err != nil || d.Change.Measure != apiclient.IndicatorChangeMeasureDifference || len(d.Items) != 5 ||
		d.Items[0].FromYear != 2015 || d.Items[0].ToYear != 2020 || d.Indicator.Change == nil {
		t.Errorf("getIndicatorRanking (change): %+v, %v", d, err)
	}
	keys := "population,fiscal_strength"
	standing, err := c.GetMunicipalityIndicatorsWithResponse(ctx, "13101", &apiclient.GetMunicipalityIndicatorsParams{Keys: &keys})
	check("getMunicipalityIndicators", err, standing.StatusCode(), http.StatusOK)
	if d := standing.JSON200.Data; d.Total != 2 || d.Items[1].Key != "fiscal_strength" || len(d.Items[1].Series) < 2 || d.Items[1].Value == nil {
		t.Errorf("getMunicipalityIndicators: %+v", d)
	}
	for _, format := range []apiclient.ExportIndicatorSeriesParamsFormat{apiclient.ExportIndicatorSeriesParamsFormatCsv, apiclient.ExportIndicatorSeriesParamsFormatParquet} {
		file, err := c.ExportIndicatorSeriesWithResponse(ctx, &apiclient.ExportIndicatorSeriesParams{Format: format, Pref: &pref, Indicators: &indicators})
		check("exportIndicatorSeries "+string(format), err, file.StatusCode(), http.StatusOK)
		if len(file.Body) < 1000 || file.Headers200.ContentDisposition == nil {
			t.Errorf("exportIndicatorSeries %s: %d bytes, headers %+v", format, len(file.Body), file.Headers200)
		}
	}

	exported, err := c.ExportMunicipalitiesWithResponse(ctx, &apiclient.ExportMunicipalitiesParams{Format: apiclient.ExportFormatJson, Pref: &pref})
	check("exportMunicipalities json", err, exported.StatusCode(), http.StatusOK)
	if d := exported.JSON200.Data; d.Total != len(d.Items) || d.Total != 62 || d.Items[0].Scores.Young.RankTotal == 0 {
		t.Errorf("exportMunicipalities json: total %d", d.Total)
	}
	for _, format := range []apiclient.ExportFormat{apiclient.ExportFormatCsv, apiclient.ExportFormatParquet} {
		file, err := c.ExportMunicipalitiesWithResponse(ctx, &apiclient.ExportMunicipalitiesParams{Format: format, Pref: &pref})
		check("exportMunicipalities "+string(format), err, file.StatusCode(), http.StatusOK)
		if len(file.Body) < 1000 || file.Headers200.ContentDisposition == nil {
			t.Errorf("exportMunicipalities %s: %d bytes, headers %+v", format, len(file.Body), file.Headers200)
		}
	}

	geo, err := c.ExportMunicipalitiesWithResponse(ctx, &apiclient.ExportMunicipalitiesParams{Format: apiclient.ExportFormatGeojson, Pref: &pref})
	check("exportMunicipalities geojson", err, geo.StatusCode(), http.StatusOK)
	if g := geo.ApplicationgeoJSON200; g == nil || len(g.Features) != 62 || g.Features[0].Id != "13101" || g.Features[0].Geometry == nil || len(g.Attribution) != 2 {
		t.Errorf("exportMunicipalities geojson: %.200s", geo.Body)
	}

	meta, err := c.GetMetaWithResponse(ctx, nil)
	check("getMeta", err, meta.StatusCode(), http.StatusOK)
	if d := meta.JSON200.Data; d.Municipalities != 1741 || len(d.Axes) != 6 || len(d.Stats) != 16 || len(d.Prefectures) != 47 ||
		d.Boundaries == nil || d.Boundaries.Credit == "" {
		t.Errorf("getMeta: %d municipalities, %d axes, %d stats, %d prefectures", d.Municipalities, len(d.Axes), len(d.Stats), len(d.Prefectures))
	}

	ct, body := multipartBody(t, [2]string{"file", string(scutImage(t, "CF100.jpg"))})
	faces, err := c.PredictFacesWithBodyWithResponse(ctx, ct, body)
	check("predictFaces", err, faces.StatusCode(), http.StatusOK)
	if p := faces.JSON200; p.FacesDetected != 1 || p.Results[0].Gender != apiclient.FaceResultGenderFemale || p.Results[0].RawScore < 1 ||
		p.Usage.UsedToday != 1 || faces.Headers200.RateLimit == nil {
		t.Errorf("predictFaces: %+v", p)
	}

	anonymous := newClient("")
	unkeyed, err := anonymous.GetMetaWithResponse(ctx, nil)
	check("getMeta without a key", err, unkeyed.StatusCode(), http.StatusUnauthorized)
	if p := unkeyed.ApplicationproblemJSON401; p.Code != apiclient.ProblemCodeMissingApiKey || unkeyed.Headers401.WWWAuthenticate == nil {
		t.Errorf("401 problem %+v", p)
	}
	health, err := anonymous.GetHealthWithResponse(ctx)
	check("getHealth", err, health.StatusCode(), http.StatusOK)
	ready, err := anonymous.GetReadinessWithResponse(ctx)
	check("getReadiness", err, ready.StatusCode(), http.StatusOK)
	metrics, err := anonymous.GetMetricsWithResponse(ctx)
	check("getMetrics", err, metrics.StatusCode(), http.StatusOK)
	doc, err := anonymous.GetOpenAPIWithResponse(ctx)
	check("getOpenAPI", err, doc.StatusCode(), http.StatusOK)
	if (*doc.JSON200)["openapi"] != "3.1.0" {
		t.Errorf("getOpenAPI: openapi %v", (*doc.JSON200)["openapi"])
	}
	problem, err := anonymous.GetProblemTypeWithResponse(ctx, apiclient.ProblemCodeDailyLimitExceeded)
	check("getProblemType", err, problem.StatusCode(), http.StatusOK)
	page, err := anonymous.GetMunicipalityPageWithResponse(ctx, "13101")
	check("getMunicipalityPage", err, page.StatusCode(), http.StatusOK)
	if !strings.Contains(string(page.Body), "千代田区") {
		t.Error("getMunicipalityPage: the page does not name 千代田区")
	}
}
