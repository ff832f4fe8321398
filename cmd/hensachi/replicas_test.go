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

	"github.com/jackc/pgx/v5"

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
	r.waitReady(t, time.Minute)
	return r
}

// waitReady waits until the replica's /readyz answers 200, failing at once if it exits.
func (r *replica) waitReady(t *testing.T, timeout time.Duration) {
	t.Helper()
	waitFor(t, timeout, r.url+" ready\n"+r.tail(), func() bool {
		select {
		case err := <-r.done:
			r.done <- err
			t.Fatalf("server exited: %v\n%s", err, r.tail())
		default:
		}
		return r.ready()
	})
}

// waitFor polls cond until it holds and fails the test after timeout. The replicas are other
// processes with their own clocks, which no test can move: instead of sleeping for as long as a
// flush, a lease or a recovery is thought to take, a test waits for its effect to show, and goes
// on as soon as it does.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	poll := time.NewTicker(20 * time.Millisecond)
	defer poll.Stop()
	deadline := time.After(timeout)
	for !cond() {
		select {
		case <-poll.C:
		case <-deadline:
			t.Fatalf("not within %v: %s", timeout, what)
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

// expireLeases makes the leases an account's counters hold expired, as the TTL would after their
// owner's last renewal: what a process killed while holding them leaves, whose owner row no sync
// renews any more. The next sync of one of the counters takes them back.
func expireLeases(t *testing.T, dsn, email string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	tag, err := conn.Exec(ctx, `UPDATE quota_owner SET expires_at = now() - interval '1 second' WHERE owner IN
		(SELECT l.owner FROM quota_lease l JOIN accounts a ON a.id = l.account_id WHERE a.email = $1)`, email)
	if err != nil {
		t.Fatal(err)
	}
	if tag.RowsAffected() == 0 {
		t.Errorf("%s: no lease to expire", email)
	}
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
		waitFor(t, 10*time.Second, emails[i]+"'s idle units given back", func() bool {
			_, leased := quotaOf(t, dsn, emails[i], hensachi.ServiceTown)
			return leased == 0
		})
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

	// background load on another account for the whole test, paced so that the two replicas and
	// PostgreSQL keep the cores they share
	var mu sync.Mutex
	type timed struct {
		result
		at      time.Time
		replica int
	}
	var load []timed
	stop := make(chan struct{})
	stopLoad := sync.OnceFunc(func() { close(stop) })
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			pace := time.NewTicker(2 * time.Millisecond)
			defer pace.Stop()
			for i := 0; i < 100_000; i++ {
				at, rep := time.Now(), (w+i)%2
				r := call(reps[rep], loadKey, i)
				mu.Lock()
				load = append(load, timed{r, at, rep})
				mu.Unlock()
				select {
				case <-stop:
					return
				case <-pace.C:
				}
			}
		})
	}
	defer func() { stopLoad(); wg.Wait() }()
	// loadSeen reports whether each replica has answered a load call made after since with status.
	loadSeen := func(since time.Time, status int) bool {
		mu.Lock()
		defer mu.Unlock()
		var seen [2]bool
		for _, r := range load {
			if r.at.After(since) && r.status == status {
				seen[r.replica] = true
			}
		}
		return seen[0] && seen[1]
	}

	start := time.Now()
	exact := tally(t, fire(reps, exactKey, 100, 16), limit)
	if exact != 100 {
		t.Fatalf("%d of 100 calls succeeded with the database up", exact)
	}
	waitFor(t, 10*time.Second, "the load served by both replicas", func() bool { return loadSeen(start, 200) })

	pg.Stop(t)
	stopped := time.Now()
	// Calls already holding a key and a unit may still succeed for a moment: keys are cached
	// (300 ms here) and units leased before the outage are still this replica's to use. Such
	// successes count (the limit must come out exact); the outage is under way for the exact
	// account once each replica refuses it.
	refused := [2]bool{}
	waitFor(t, 10*time.Second, "both replicas refuse the exact account with the database down", func() bool {
		for i, r := range reps {
			if refused[i] {
				continue
			}
			switch res := call(r, exactKey, i); {
			case res.err == nil && res.status == 200:
				exact++
			case res.err == nil && res.status == 503 && res.code == hensachi.EUnavailable:
				refused[i] = true
			default:
				t.Errorf("call as the outage begins: status %d, code %q, err %v", res.status, res.code, res.err)
			}
		}
		return refused[0] && refused[1]
	})
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
	waitFor(t, 10*time.Second, "the load refused by both replicas during the outage", func() bool { return loadSeen(stopped, 503) })
	pg.Start(t)
	restarted := time.Now()

	// the replicas recover by themselves
	for _, r := range reps {
		r.waitReady(t, 20*time.Second)
	}
	recovered := time.Now()
	waitFor(t, 10*time.Second, "the load served again by both replicas", func() bool { return loadSeen(recovered, 200) })
	for i, r := range reps {
		if res := call(r, laterKey, i); res.status != 200 {
			t.Errorf("a key issued before the outage, on replica %d: status %d (%s)", i, res.status, res.code)
		}
	}
	after := fire(reps, exactKey, 2*limit, 16)
	exact += tally(t, after, limit)
	// what a replica held idle goes back within two flushes (all of it but what a sync left in
	// doubt by the outage may hold, the most the check below allows); then nothing more succeeds
	waitFor(t, 10*time.Second, "the exact account's idle units given back", func() bool {
		_, leased := quotaOf(t, dsn, "exact@example.com", hensachi.ServiceTown)
		return leased <= 64
	})
	exact += tally(t, fire(reps, exactKey, 50, 16), limit)
	stopLoad()
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
// holds a leased block, cannot give the block back; once its lease has expired the other replica
// can use the rest of the limit, instead of stopping short by the block until midnight. The test
// does not wait out the TTL: it is the killed replica's clock, and moves its lease past expiry
// (expireLeases); that a lease expires after the TTL of its last renewal, and not before, is the
// store's test (internal/testrig/storetest). What SIGKILL loses is the successes the killed replica had not yet reported (at most
// its last second), as a crash of the embedded store does: by that many the day's calls can pass
// the limit, and the test measures it. HENSACHI_SOAK repeats it with a new replica each time.
func TestKilledReplicaUnitsComeBack(t *testing.T) {
	dsn := pgtest.Schema(t, testenv.PostgresURL(t))
	dataset := fixtureDataset(t)
	const limit = 200
	args := []string{"-limits", fmt.Sprintf("town.free=%d", limit)}
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
		waitFor(t, 30*time.Second, "40 successes on the doomed replica", func() bool { return doomedOK.Load() >= 40 })
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
		expireLeases(t, dsn, email)
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
