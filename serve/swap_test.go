package serve_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/app"
	"github.com/hensachi/hensachi/dataset"
	"github.com/hensachi/hensachi/internal/testrig/realdata"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
)

// The swap tests write the replacing datasets without the indicators: the swap's mechanics do not
// depend on what the file holds, and building the indicators' standings on each of twenty loads
// under the race detector made these tests minutes long (the served dataset has them, and
// dataset's and town's tests load them).

// TestSwapUnderLoad replaces the dataset file while clients read; every response must be complete
// and consistent: its ETag names the version whose data it carries. The reference counts behind it
// are checked in dataset.TestHolderReferences.
func TestSwapUnderLoad(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, func(c *app.Config) { c.KeyCacheTTL = time.Minute })
	built := realdata.Built(t)
	path := ts.Catalogs.Path()
	v1 := ts.Catalogs.Acquire()
	oldVersion := v1.Dataset.Version
	v1.Release()

	// the second version differs in its data_updated date
	meta := built.Meta
	meta.DataUpdated = "2099-01-01"
	next := filepath.Join(ts.dir, "next.arrow")
	newVersion, err := dataset.Write(next, built.Municipalities, meta)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{`"` + oldVersion + `"`: built.Meta.DataUpdated, `"` + newVersion + `"`: "2099-01-01"}

	stop := make(chan struct{})
	var wg, started sync.WaitGroup
	var calls, sawNew atomic.Int64
	enough := make(chan struct{}) // closed at the 20th response of the new version
	for range 8 {
		wg.Add(1)
		started.Add(1)
		go func() {
			defer wg.Done()
			first := true
			defer func() {
				if first { // a client that failed at once
					started.Done()
				}
			}()
			for {
				select {
				case <-stop:
					return
				default:
				}
				r := ts.do(t, "GET", "/town/v1/municipalities/13101", "X-API-Key", ts.proKey)
				if r.status != 200 {
					t.Errorf("status %d during the swap: %s", r.status, r.body)
					return
				}
				var e struct {
					Data struct {
						DataUpdated string `json:"data_updated"`
					}
				}
				if err := json.Unmarshal(r.body, &e); err != nil {
					t.Errorf("torn body: %v", err)
					return
				}
				etag := strings.Replace(r.header.Get("ETag"), `.gz"`, `"`, 1) // the gzip tag names the same version
				if want[etag] != e.Data.DataUpdated {
					t.Errorf("ETag %s with data_updated %s", etag, e.Data.DataUpdated)
				}
				if e.Data.DataUpdated == "2099-01-01" && sawNew.Add(1) == 20 {
					close(enough)
				}
				calls.Add(1)
				if first {
					started.Done()
					first = false
				}
			}
		}()
	}
	started.Wait() // every client has had an answer: the swap happens under load
	// hold a reference across the swap, as a slow request would
	inFlight := ts.Catalogs.Acquire()
	if err := os.Rename(next, path); err != nil {
		t.Fatal(err)
	}
	if swapped, err := ts.Catalogs.Reload(); err != nil || !swapped {
		t.Fatalf("reload: swapped %v, %v", swapped, err)
	}
	// the old mapping stays readable while referenced
	if m := inFlight.Dataset.Municipality(inFlight.Dataset.Index("13101")); m.Name != "千代田区" {
		t.Errorf("old snapshot after the swap reads %q", m.Name)
	}
	inFlight.Release()
	select {
	case <-enough:
	case <-time.After(5 * time.Second):
	}
	close(stop)
	wg.Wait()
	if sawNew.Load() == 0 {
		t.Fatal("no response served the new dataset")
	}
	t.Logf("%d calls during the swap", calls.Load())
}

// TestWatchPicksUpReplacement: the watcher notices a replaced file without a signal.
func TestWatchPicksUpReplacement(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, func(c *app.Config) { c.Server.WatchInterval = 20 * time.Millisecond })
	built := realdata.Built(t)
	meta := built.Meta
	meta.DataUpdated = "2099-02-02"
	swapped := ts.Catalogs.Swapped()
	if _, err := dataset.Write(ts.Catalogs.Path(), built.Municipalities, meta); err != nil {
		t.Fatal(err)
	}
	// under the race detector on a busy machine a load takes seconds: the limit only catches a
	// watcher that never notices
	select {
	case <-swapped:
	case <-time.After(2 * time.Minute):
		t.Fatal("the replaced dataset was not loaded")
	}
	s := ts.Catalogs.Acquire()
	defer s.Release()
	if updated := s.Dataset.Meta.DataUpdated; updated != "2099-02-02" {
		t.Errorf("the watcher swapped in data of %s", updated)
	}
}

// TestBadReplacementKeepsServing: a corrupt file does not replace a good dataset.
func TestBadReplacementKeepsServing(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	if err := writeFileAtomic(ts.Catalogs.Path(), []byte("not arrow")); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Catalogs.Reload(); err == nil {
		t.Fatal("a corrupt dataset loaded")
	}
	if r := ts.get(t, "/town/v1/meta"); r.status != 200 {
		t.Errorf("after a bad replacement: %d", r.status)
	}
}

func writeFileAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// TestOverwriteInPlaceUnderLoad: operators copy a new dataset over the served file
// (cp new.arrow data/dataset.arrow), which truncates and rewrites the same inode. Readers must
// never see a torn file, and the server must not die of SIGBUS on a mapping that shrank. Some
// copies are damaged: refused while the previous version keeps serving. HENSACHI_SOAK multiplies
// the overwrites.
func TestOverwriteInPlaceUnderLoad(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, func(c *app.Config) {
		c.KeyCacheTTL = time.Minute
		c.Server.Limits = hensachi.Limits{hensachi.PlanPro: {hensachi.ServiceTown: 1 << 62}}
	})
	built := realdata.Built(t)
	path := ts.Catalogs.Path()
	versions := make([][]byte, 2)
	for i, updated := range []string{"2099-03-03", "2099-04-04"} {
		meta := built.Meta
		meta.DataUpdated = updated
		next := filepath.Join(ts.dir, "v"+updated+".arrow")
		if _, err := dataset.Write(next, built.Municipalities, meta); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(next)
		if err != nil {
			t.Fatal(err)
		}
		versions[i] = b
	}

	stop := make(chan struct{})
	var readers sync.WaitGroup
	var calls atomic.Int64
	for range 4 {
		readers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				r := ts.do(t, "GET", "/town/v1/municipalities/13101", "X-API-Key", ts.proKey)
				if r.status != 200 || !json.Valid(r.body) {
					t.Errorf("status %d during in-place overwrites: %s", r.status, r.body)
					return
				}
				calls.Add(1)
			}
		})
	}
	serving := func() string {
		s := ts.Catalogs.Acquire()
		defer s.Release()
		return s.Dataset.Version
	}
	overwrites := 20 * testenv.Soak()
	for i := range overwrites {
		if i%4 == 3 {
			// a damaged copy, one byte changed inside the data: refused, the serving version stays
			before := serving()
			damaged := bytes.Clone(versions[i%2])
			damaged[len(damaged)/2] ^= 0x40
			if err := os.WriteFile(path, damaged, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := ts.Catalogs.Reload(); err == nil {
				t.Fatalf("overwrite %d: a damaged file was accepted", i)
			}
			if now := serving(); now != before {
				t.Fatalf("overwrite %d: serving %s after a damaged file, want %s", i, now, before)
			}
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0) // what cp does: same inode, truncated
		if err != nil {
			t.Fatal(err)
		}
		b := versions[i%2]
		// written in two halves, so a reload may meet a half-written file
		f.Write(b[:len(b)/2])
		ts.Catalogs.Reload() // a half-written file is refused; the previous dataset keeps serving
		f.Write(b[len(b)/2:])
		f.Close()
		if _, err := ts.Catalogs.Reload(); err != nil {
			t.Fatalf("overwrite %d: %v", i, err)
		}
	}
	close(stop)
	readers.Wait()
	s := ts.Catalogs.Acquire()
	defer s.Release()
	if got := s.Dataset.Meta.DataUpdated; got != "2099-04-04" {
		t.Errorf("after the overwrites the server serves data of %s", got)
	}
	t.Logf("%d calls during %d in-place overwrites, some damaged", calls.Load(), overwrites)
}

// TestClosedDatasetUnavailable: once the dataset is closed (the server shutting down), a statistics
// call is a 503 to retry, with where the account stands, and /readyz says the dataset is not loaded.
func TestClosedDatasetUnavailable(t *testing.T) {
	ts := newTestServer(t)
	ts.Catalogs.Close()
	r := ts.get(t, "/town/v1/meta")
	if p := decode[problem](t, r.body); r.status != 503 || p.Code != hensachi.EUnavailable || r.header.Get("Retry-After") == "" || r.header.Get("RateLimit") == "" {
		t.Errorf("a call after the dataset closed: %d %v %s", r.status, r.header, r.body)
	}
	if r := ts.do(t, "GET", "/readyz"); r.status != 503 || !strings.Contains(string(r.body), "dataset: not loaded") {
		t.Errorf("/readyz: %d %s", r.status, r.body)
	}
}
