package hensachi_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestPackageDependencies keeps each package in its room: it fails when a package comes to depend
// (directly or not) on one it must not, as `go list -deps` sees it.
func TestPackageDependencies(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	const mod = "github.com/hensachi/hensachi"
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Deps " "}} {{range .Imports}}import:{{.}} {{end}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	// a package's dependencies, and its own imports as "import:path"
	deps := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		deps[fields[0]] = fields[1:]
	}
	rules := []struct {
		pkg       string // a package, or the packages below a path ending in "/..."
		forbidden []string
		why       string
	}{
		{mod, []string{mod + "/..."}, "the domain types depend on no other package of the project"},
		{mod + "/compute", []string{"github.com/apache/arrow-go", mod + "/dataset"}, "ranking maths knows nothing of the file format"},
		{mod + "/face/...", []string{"github.com/apache/arrow-go", mod + "/dataset", mod + "/serve", mod + "/web", mod + "/quota", mod + "/ingest"}, "face analysis needs no statistics, HTTP or quota"},
		{mod + "/web/...", []string{mod + "/serve"}, "the pages receive narrow interfaces, never the server"},
		{mod + "/web/page", []string{mod + "/web/site", mod + "/web/account", mod + "/town", mod + "/oidc"}, "the shared layout and page writers know neither side of the web front"},
		{mod + "/web/site", []string{mod + "/web/account", mod + "/oidc", mod + "/mail"}, "the public pages know nothing of logins, sessions or mail"},
		{mod + "/web/account", []string{mod + "/web/site", mod + "/town", mod + "/dataset"}, "the account side reads no statistics; the demo's footer credit comes as a function"},
		{mod + "/quota", []string{"net/http", mod + "/serve", mod + "/sqlite", mod + "/postgres"}, "the quota engine has no HTTP and no store of its own"},
		{mod + "/town", []string{"net/http", "import:encoding/json", mod + "/parquetfile", mod + "/csvfile", mod + "/export", mod + "/serve", mod + "/web"}, "the dataset's read model serves both transports, knows neither and writes no wire format"},
		// the Parquet codecs (brotli's HTTP helper) bring net/http in, which the writer never calls
		{mod + "/parquetfile", []string{"import:net/http", mod + "/town", mod + "/serve", mod + "/web", mod + "/dataset"}, "the Parquet writer writes columns it is given, whatever they hold"},
		{mod + "/csvfile", []string{"net/http", mod + "/town", mod + "/serve", mod + "/web", mod + "/dataset"}, "the CSV writer writes columns it is given, whatever they hold"},
		{mod + "/geojsonfile", []string{"net/http", mod + "/town", mod + "/serve", mod + "/web", mod + "/dataset", mod + "/topojson"}, "the GeoJSON writer writes the columns and shapes it is given, whatever they hold and wherever the shapes were read"},
		// the Parquet codecs bring net/http in, as for parquetfile
		{mod + "/export", []string{"import:net/http", mod + "/serve", mod + "/web"}, "the bulk files serve both transports and know neither"},
		{mod + "/dataset", []string{mod + "/serve", mod + "/ingest", "net/http"}, "the dataset file is read and written without the server or the parsers"},
		{mod + "/topojson", []string{"net/http", mod + "/ingest", mod + "/dataset", mod + "/town", mod + "/serve", mod + "/web"}, "a file format reads files, nothing more"},
		{mod + "/geo", []string{mod + "/..."}, "the boundaries' types depend on no other package of the project"},
		{mod + "/ingest", []string{mod + "/dataset", mod + "/serve", "github.com/apache/arrow-go"}, "parsers turn files into records, nothing more"},
		{mod + "/xlsfile", []string{mod, "github.com/"}, "the .xls reader is a file format: cells out of bytes, nothing of the project's and no library"},
		{mod + "/internal/testrig/rawfiles", []string{mod + "/ingest", mod + "/dataset", mod + "/compute", mod + "/town"}, "the tests' own reading of the source files shares no code with the pipeline it checks"},
		{mod + "/uploads", []string{mod + "/face", mod + "/serve"}, "the upload store keeps bytes, whatever they are"},
		{mod + "/serve", []string{mod + "/web", mod + "/devidp", mod + "/sqlite", mod + "/postgres", mod + "/uploads", mod + "/mail", mod + "/training"}, "the API's transport is given its parts (cmd/hensachi builds them): no web front, login provider, store or upload store of its own"},
		{mod + "/internal/negotiate", []string{mod + "/serve", mod + "/web"}, "content negotiation is shared by the API and the pages and knows neither"},
		{mod + "/internal/uploadbody", []string{mod + "/serve", mod + "/web", mod + "/facecall", mod + "/face"}, "reading an upload's body is shared by the API and the demo page and knows neither, nor what the bytes are"},
		{mod + "/facecall", []string{"net/http", mod + "/serve", mod + "/web", mod + "/uploads", mod + "/sqlite", mod + "/postgres"}, "a face call is the same whichever transport brings it, over the stores it is given"},
		{mod + "/app", []string{mod + "/sqlite", mod + "/postgres", mod + "/face/ort", mod + "/uploads", mod + "/devidp", mod + "/cmd", mod + "/training"}, "the assembly is given the store, the face analyzer and the upload store, which only the command opens, so that the tests build the server as the command does"},
		// gonum/stat, which compute uses, imports optimize/convex/lp, so only the optimiser itself is named
		{mod + "/cmd/hensachi", []string{"=gonum.org/v1/gonum/optimize", mod + "/training"}, "the server links no training: the trained models are files it loads"},
		{mod + "/cmd/hensachi", []string{"google.golang.org/grpc", "google.golang.org/protobuf", "github.com/apache/arrow-go/v18/arrow/flight"}, "the server links neither gRPC nor protobuf: Parquet is written without pqarrow (whose Flight import brings gRPC) and the metrics without Prometheus's client (protobuf)"},
		{mod + "/face/...", []string{"=gonum.org/v1/gonum/optimize", mod + "/training"}, "the models' inference needs none of their training"},
		{mod + "/training", []string{mod + "/serve", mod + "/web", mod + "/dataset", mod + "/quota"}, "training reads image datasets, not the service or its statistics"},
		{mod + "/training/...", []string{mod + "/serve", mod + "/web", mod + "/dataset", mod + "/quota"}, "training reads image datasets, not the service or its statistics"},
		{mod + "/cmd/train-models", []string{mod + "/serve", mod + "/web", mod + "/dataset", mod + "/quota"}, "training reads image datasets, not the service or its statistics"},
		{mod + "/cmd/assemble-models/internal/...", []string{"github.com/yalue/onnxruntime_go", mod + "/face"}, "model conversion runs at build time, without the runtime or the pipeline"},
		{mod + "/devidp", []string{mod + "/oidc", mod + "/web", mod + "/serve", "testing"}, "the development provider shares no code with the relying party it logs in, and ships without test code"},
	}
	for _, r := range rules {
		matched := 0
		for pkg, ds := range deps {
			if pkg != r.pkg && !(strings.HasSuffix(r.pkg, "/...") && matches(pkg, r.pkg)) {
				continue
			}
			matched++
			for _, d := range ds {
				for _, f := range r.forbidden {
					if matches(d, f) {
						t.Errorf("%s depends on %s: %s", pkg, d, r.why)
					}
				}
			}
		}
		if matched == 0 {
			t.Errorf("rule for %s matches no package", r.pkg)
		}
	}
}

// matches reports whether a package path is pattern or, for a pattern ending in "/...", below it;
// a plain pattern also covers its subpackages (e.g. a module's packages); one starting with "=" is
// that package alone. A pattern "import:path" matches the package's own imports (listed so).
func matches(pkg, pattern string) bool {
	if exact, ok := strings.CutPrefix(pattern, "="); ok {
		return pkg == exact
	}
	if prefix, ok := strings.CutSuffix(pattern, "/..."); ok {
		return strings.HasPrefix(pkg, prefix+"/")
	}
	return pkg == pattern || strings.HasPrefix(pkg, pattern+"/")
}
