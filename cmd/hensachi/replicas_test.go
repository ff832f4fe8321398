package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/compute"
	"github.com/hensachi/hensachi/dataset"
	"github.com/hensachi/hensachi/ingest"
	"github.com/hensachi/hensachi/internal/testrig/fixtures"
	"github.com/hensachi/hensachi/internal/testrig/pgtest"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
	"github.com/hensachi/hensachi/postgres"
)

// The replica tests run real `hensachi serve` processes, because what they check is what separate
// processes share: only the database, no memory, each with its own pool, meter and signals. The
// test binary doubles as the command (TestMain below runs main when asked to), so no second
// `go build` is needed — under -race that would compile everything again — and the servers run
// with the race detector too.
func TestMain(m *testing.M) {
	if os.Getenv("HENSACHI_TEST_AS_COMMAND") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// hensachiCmd runs the hensachi command (this test binary) with args, its output going to log.
func hensachiCmd(log io.Writer, args ...string) *exec.Cmd {
	return commandAt(os.Args[0], log, args...)
}

// commandAt runs bin, this test binary or a built command, as the hensachi command.
func commandAt(bin string, log io.Writer, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "HENSACHI_TEST_AS_COMMAND=1")
	cmd.Stdout, cmd.Stderr = log, log
	return cmd
}

var keyPattern = regexp.MustCompile(`hsk_[0-9A-Za-z]+`)

// createAccount creates an account with `hensachi account create -database-url` and returns
// the key it prints.
func createAccount(t *testing.T, dsn, email, plan string) string {
	t.Helper()
	var out strings.Builder
	if err := hensachiCmd(&out, "account", "create", "-database-url", dsn, "-email", email, "-plan", plan).Run(); err != nil {
		t.Fatalf("account create: %v\n%s", err, out.String())
	}
	key := keyPattern.FindString(out.String())
	if !hensachi.CheckAPIKey(key) {
		t.Fatalf("account create printed no key:\n%s", out.String())
	}
	return key
}

// fixtureDataset builds a dataset from the synthetic source files, so these tests need no
// shared inputs.
func fixtureDataset(t *testing.T) string {
	t.Helper()
	raw := t.TempDir()
	if err := fixtures.WriteRaw(raw, fixtures.Default()); err != nil {
		t.Fatal(err)
	}
	res, err := ingest.BuildIndicators(raw, slog.New(slog.NewTextHandler(io.Discard, nil)), fixtures.Indicators())
	if err != nil {
		t.Fatal(err)
	}
	compute.Apply(res.Municipalities, &res.Meta)
	compute.ApplyIndicators(&res.Indicators, res.IndicatorValues)
	path := filepath.Join(t.TempDir(), "dataset.arrow")
	if _, err := dataset.Write(path, res.Municipalities, res.Meta, dataset.WithIndicators(res.Indicators, res.IndicatorValues)); err != nil {
		t.Fatal(err)
	}
	return path
}

// replica is one `hensachi serve` process on a loopback port.
type replica struct {
	url  string
	cmd  *exec.Cmd
	log  string
	done chan error
}

func startReplica(t *testing.T, dsn, dataset string, args ...string) *replica {
	t.Helper()
	return startServer(t, os.Args[0], append([]string{"-database-url", dsn, "-dataset", dataset, "-services", "town",
		"-access-log=false", "-uploads", ""}, args...)...)
}

// startServer runs `bin serve` with args on a free loopback port and waits until it is ready.
func startServer(t *testing.T, bin string, args ...string) *replica {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	logf, err := os.CreateTemp(t.TempDir(), "replica-*.log")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logf.Close() })
	r := &replica{url: "http://" + addr, log: logf.Name(), done: make(chan error, 1)}
	r.cmd = commandAt(bin, logf, append([]string{"serve", "-addr", addr}, args...)...)
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.done <- r.cmd.Wait() }()
	t.Cleanup(func() { r.stop(t) })
	deadline := time.Now().Add(60 * time.Second)
	for {
		if r.ready() {
			return r
		}
		select {
		case err := <-r.done:
			r.done <- err
			t.Fatalf("server exited: %v\n%s", err, r.tail())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("server not ready within a minute\n%s", r.tail())
		}
	}
}

// stop stops the process as an orchestrator would (SIGTERM: finish requests, give back quota).
func (r *replica) stop(t *testing.T) {
	t.Helper()
	if r.cmd.ProcessState != nil {
		return
	}
	r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-r.done:
		r.done <- err
		if err != nil {
			t.Errorf("replica exited with %v\n%s", err, r.tail())
		}
	case <-time.After(30 * time.Second):
		r.cmd.Process.Kill()
		t.Errorf("replica did not stop within 30 s\n%s", r.tail())
	}
}

func (r *replica) tail() string {
	b, _ := os.ReadFile(r.log)
	return string(b[max(0, len(b)-4000):])
}

// ready reports whether the replica's /readyz answers 200.
func (r *replica) ready() bool {
	resp, err := http.Get(r.url + "/readyz")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == 200
}

// result is one call's outcome.
type result struct {
	status     int
	code       string // the problem's code
	retryAfter string
	used       int64 // usage.used_today of a success
	took       time.Duration
	err        error
}

var client = &http.Client{
	Timeout:   15 * time.Second, // far beyond what a call may take: a hang shows as an error
	Transport: &http.Transport{MaxIdleConnsPerHost: 64},
}

var paths = []string{"/town/v1/municipalities/01100", "/town/v1/meta", "/town/v1/rankings/young?limit=3"}

func call(r *replica, key string, i int) result {
	req, _ := http.NewRequest(http.MethodGet, r.url+paths[i%len(paths)], nil)
	req.Header.Set("X-API-Key", key)
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return result{err: err, took: time.Since(start)}
	}
	defer resp.Body.Close()
	var body struct {
		Code  string `json:"code"`
		Usage struct {
			UsedToday int64 `json:"used_today"`
		} `json:"usage"`
	}
	err = json.NewDecoder(resp.Body).Decode(&body)
	return result{status: resp.StatusCode, code: body.Code, retryAfter: resp.Header.Get("Retry-After"),
		used: body.Usage.UsedToday, took: time.Since(start), err: err}
}

// fire makes n calls, parallel at most par at a time, spread evenly over the replicas.
func fire(reps []*replica, key string, n, par int) []result {
	out := make([]result, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, par)
	for i := range n {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			out[i] = call(reps[i%len(reps)], key, i)
		})
	}
	wg.Wait()
	return out
}

// tally counts successes and checks that every other outcome is a well-formed 429, or a 503 that
// asks to try again while units are held by calls in progress.
func tally(t *testing.T, results []result, limit int64) (ok int64) {
	t.Helper()
	for _, r := range results {
		switch {
		case r.err != nil:
			t.Errorf("call failed: %v", r.err)
		case r.status == 200:
			ok++
			if r.used < 1 || r.used > limit {
				t.Errorf("used_today %d outside 1..%d", r.used, limit)
			}
		case r.status == 429:
			if r.code != hensachi.EDailyLimitExceeded || r.retryAfter == "" {
				t.Errorf("429 with code %q, Retry-After %q", r.code, r.retryAfter)
			}
		case r.status == 503:
			if r.code != hensachi.EOverloaded || r.retryAfter == "" || len(r.retryAfter) > 1 {
				t.Errorf("503 with code %q, Retry-After %q; want overloaded, a few seconds", r.code, r.retryAfter)
			}
		default:
			t.Errorf("status %d (%s)", r.status, r.code)
		}
	}
	return ok
}

// quotaOf reads a counter from the database.
func quotaOf(t *testing.T, dsn string, email string, service hensachi.Service) (count, leased int64) {
	t.Helper()
	ctx := context.Background()
	s, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a, err := s.AccountByEmail(ctx, email)
	if err != nil {
		t.Fatal(err)
	}
	count, leased, err = s.Quota(ctx, hensachi.UsageKey{AccountID: a.ID, Service: service, Day: hensachi.Day(time.Now())})
	if err != nil {
		t.Fatal(err)
	}
	return count, leased
}

// TestReplicasKeepLimitExact: two server processes on one database, ten times the limit in
// parallel calls spread over both: exactly the limit succeeds and the rest are 429; once both have
// stopped, the database holds the limit as the count and nothing leased. HENSACHI_SOAK repeats
// it on new accounts.
func TestReplicasKeepLimitExact(t *testing.T) {
	dsn := pgtest.Schema(t, testenv.PostgresURL(t))
	dataset := fixtureDataset(t)
	const limit = 150
	emails := make([]string, testenv.Soak())
	keys := make([]string, len(emails))
	for i := range emails {
		emails[i] = fmt.Sprintf("exact%d@example.com", i)
		keys[i] = createAccount(t, dsn, emails[i], "free")
	}
	limits := fmt.Sprintf("town.free=%d", limit)
	reps := []*replica{startReplica(t, dsn, dataset, "-limits", limits), startReplica(t, dsn, dataset, "-limits", limits)}

	for i, key := range keys {
		ok := tally(t, fire(reps, key, 10*limit, 64), limit)
		t.Logf("account %d, first burst: %d successes", i, ok)
		// units that a replica held without calls for them go back within two flushes; then the
		// remainder, if any, can be used from the other replica, and nothing beyond the limit
		time.Sleep(2*time.Second + 500*time.Millisecond)
		ok += tally(t, fire(reps, key, limit, 16), limit)
		if ok != limit {
			t.Errorf("account %d: %d calls succeeded across both replicas, want exactly %d", i, ok, limit)
		}
	}
	for _, r := range reps {
		r.stop(t)
	}
	for _, email := range emails {
		if count, leased := quotaOf(t, dsn, email, hensachi.ServiceTown); count != limit || leased != 0 {
			t.Errorf("%s in the database after both stopped: count %d, leased %d; want %d and 0", email, count, leased, limit)
		}
	}
}

// TestDatabaseRestartUnderLoad stops PostgreSQL while two replicas are under load and starts it
// again: during the outage calls answer 503 with Retry-After (never 500, never a hang), /readyz
// reports the store, and no key can be issued; afterwards calls succeed without restarting the
// replicas, keys issued before still work, and the limit of an account used across the outage
// comes out exact.
func TestDatabaseRestartUnderLoad(t *testing.T) {
	pg := pgtest.NewCluster(t)
	dsn := pg.URL
	dataset := fixtureDataset(t)
	const limit = 300
	loadKey := createAccount(t, dsn, "load@example.com", "pro")
	exactKey := createAccount(t, dsn, "exact@example.com", "free")
	laterKey := createAccount(t, dsn, "later@example.com", "free") // first used after the outage
	args := []string{"-limits", fmt.Sprintf("town.free=%d,town.pro=1000000000", limit), "-key-cache-ttl", "300ms"}
	reps := []*replica{startReplica(t, dsn, dataset, args...), startReplica(t, dsn, dataset, args...)}

	// background load on another account for the whole test
	var mu sync.Mutex
	type timed struct {
		result
		at time.Time
	}
	var load []timed
	var stopLoad atomic.Bool
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := 0; !stopLoad.Load() && i < 100_000; i++ {
				at := time.Now()
				r := call(reps[(w+i)%2], loadKey, i)
				mu.Lock()
				load = append(load, timed{r, at})
				mu.Unlock()
				time.Sleep(2 * time.Millisecond)
			}
		})
	}
	defer func() { stopLoad.Store(true); wg.Wait() }()

	exact := tally(t, fire(reps, exactKey, 100, 16), limit)
	if exact != 100 {
		t.Fatalf("%d of 100 calls succeeded with the database up", exact)
	}
	time.Sleep(300 * time.Millisecond)

	pg.Stop(t)
	stopped := time.Now()
	// Calls already holding a key and a unit may still succeed for a moment: keys are cached
	// (300 ms here) and units leased before the outage are still this replica's to use.
	time.Sleep(time.Second)
	during := fire(reps, exactKey, 60, 16)
	for _, r := range during {
		if r.err != nil || r.status != 503 || r.code != hensachi.EUnavailable || r.retryAfter == "" {
			t.Errorf("call during the outage: status %d, code %q, Retry-After %q, err %v", r.status, r.code, r.retryAfter, r.err)
		}
	}
	for _, r := range reps {
		if r.ready() {
			t.Error("/readyz reports ready with the database stopped")
		}
	}
	var out strings.Builder
	if err := hensachiCmd(&out, "account", "create", "-database-url", dsn, "-email", "lost@example.com").Run(); err == nil || keyPattern.MatchString(out.String()) {
		t.Errorf("account create with the database stopped: %v\n%s", err, out.String())
	}
	time.Sleep(time.Second)
	pg.Start(t)
	restarted := time.Now()

	// the replicas recover by themselves
	for _, r := range reps {
		for !r.ready() {
			if time.Since(restarted) > 20*time.Second {
				t.Fatalf("replica not ready 20 s after the database's return\n%s", r.tail())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	recovered := time.Now()
	time.Sleep(500 * time.Millisecond)
	for i, r := range reps {
		if res := call(r, laterKey, i); res.status != 200 {
			t.Errorf("a key issued before the outage, on replica %d: status %d (%s)", i, res.status, res.code)
		}
	}
	after := fire(reps, exactKey, 2*limit, 16)
	exact += tally(t, after, limit)
	// what a replica held idle goes back within two flushes; then nothing more succeeds
	time.Sleep(2*time.Second + 500*time.Millisecond)
	exact += tally(t, fire(reps, exactKey, 50, 16), limit)
	stopLoad.Store(true)
	wg.Wait()

	// background load: 200 or 503 only, bounded latency, 503 during the outage, 200 after
	var slowest time.Duration
	var ok, unavailable, okAfter int
	for _, r := range load {
		slowest = max(slowest, r.took)
		switch {
		case r.err != nil:
			t.Errorf("load call at %v: %v", r.at.Sub(stopped), r.err)
		case r.status == 200:
			ok++
			if r.at.After(recovered) {
				okAfter++
			}
		case r.status == 503 && r.retryAfter != "":
			unavailable++
			if r.at.After(recovered.Add(time.Second)) {
				t.Errorf("load call %v after recovery: 503", r.at.Sub(recovered))
			}
		default:
			t.Errorf("load call at %v from the stop: status %d (%s), Retry-After %q", r.at.Sub(stopped), r.status, r.code, r.retryAfter)
		}
	}
	if slowest > 8*time.Second {
		t.Errorf("slowest load call took %v", slowest)
	}
	if unavailable == 0 || okAfter == 0 {
		t.Errorf("load: %d successes (%d after recovery), %d 503s: want both", ok, okAfter, unavailable)
	}
	t.Logf("load: %d calls, %d ok (%d after recovery), %d 503, slowest %v; outage %v, recovery %v after restart",
		len(load), ok, okAfter, unavailable, slowest, restarted.Sub(stopped), recovered.Sub(restarted))

	for _, r := range reps {
		r.stop(t)
	}
	// Exact: never more than the limit, and every unit missing from the successes is accounted
	// for — leased by a sync whose outcome the outage left in doubt (stricter, by design) or
	// counted twice by a report repeated after such a sync. Normally both are zero.
	count, leased := quotaOf(t, dsn, "exact@example.com", hensachi.ServiceTown)
	t.Logf("exact account: %d successes; database count %d, leased %d", exact, count, leased)
	if exact > limit || count+leased != limit || count < exact || leased > 64 {
		t.Errorf("exact account: %d successes, database count %d + leased %d; want %d successes, all counted", exact, count, leased, limit)
	}
}

// TestKilledReplicaUnitsComeBack: a replica killed with SIGKILL in the middle of a load, while it
// holds a leased block, cannot give the block back; its lease expires after the TTL and the other
// replica can then use the rest of the limit, instead of stopping short by the block until
// midnight. What SIGKILL loses is the successes the killed replica had not yet reported (at most
// its last second), as a crash of the embedded store does: by that many the day's calls can pass
// the limit, and the test measures it. HENSACHI_SOAK repeats it with a new replica each time.
func TestKilledReplicaUnitsComeBack(t *testing.T) {
	dsn := pgtest.Schema(t, testenv.PostgresURL(t))
	dataset := fixtureDataset(t)
	const limit = 200
	args := []string{"-limits", fmt.Sprintf("town.free=%d", limit), "-quota-lease-ttl", "2s"}
	survivor := startReplica(t, dsn, dataset, args...)
	for round := range testenv.Soak() {
		email := fmt.Sprintf("killed%d@example.com", round)
		key := createAccount(t, dsn, email, "free")
		doomed := startReplica(t, dsn, dataset, args...)

		// eight clients call the doomed replica without pause; it is killed once it has answered
		// 40 successes, with calls in flight
		var doomedOK atomic.Int64
		var load sync.WaitGroup
		for w := range 8 {
			load.Go(func() {
				for i := w; ; i += 8 {
					r := call(doomed, key, i)
					if r.err != nil {
						return // the process is gone
					}
					if r.status == http.StatusOK {
						doomedOK.Add(1)
					}
				}
			})
		}
		for doomedOK.Load() < 40 {
			time.Sleep(time.Millisecond)
		}
		if err := doomed.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		load.Wait()
		<-doomed.done
		doomed.done <- nil
		reported, leased := quotaOf(t, dsn, email, hensachi.ServiceTown)
		if leased == 0 {
			t.Errorf("round %d: the killed replica held no units ahead; nothing was tested", round)
		}
		time.Sleep(3 * time.Second) // past the TTL
		survivorOK := tally(t, fire([]*replica{survivor}, key, 2*limit, 4), limit)
		lost := doomedOK.Load() - reported
		t.Logf("round %d: killed replica answered %d successes, %d reported before SIGKILL (%d counts lost); survivor: %d",
			round, doomedOK.Load(), reported, lost, survivorOK)
		if survivorOK != limit-reported {
			t.Errorf("round %d: the survivor made %d calls, want the %d the database had left: the killed replica's lease did not come back",
				round, survivorOK, limit-reported)
		}
		if lost < 0 || lost > doomedOK.Load() {
			t.Errorf("round %d: %d counts lost of %d", round, lost, doomedOK.Load())
		}
	}
	survivor.stop(t)
	for round := range testenv.Soak() {
		email := fmt.Sprintf("killed%d@example.com", round)
		if count, leased := quotaOf(t, dsn, email, hensachi.ServiceTown); count != limit || leased != 0 {
			t.Errorf("%s after the survivor stopped: count %d, leased %d; want %d and 0", email, count, leased, limit)
		}
	}
}
