// Package pgtest gives tests PostgreSQL databases of their own: a fresh schema in the shared test
// database ($HENSACHI_TEST_DATABASE_URL), or a private throwaway cluster that a test can stop and
// start again, for what happens while the database is away.
package pgtest

import (
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hensachi/hensachi/internal/testrig/testenv"
)

// Schema returns a URL for a new, empty schema in the database at dsn, dropped when the test ends.
// The URL sets search_path, so a store opened on it creates and finds its tables there: tests share
// one server without seeing each other's data, and need no CREATE DATABASE (slow) each.
func Schema(t testing.TB, dsn string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect to the test database: %v", err)
	}
	defer conn.Close(context.Background())
	name := "test_" + strings.ToLower(rand.Text()[:12])
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Logf("drop schema %s: %v", name, err)
			return
		}
		defer conn.Close(context.Background())
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+name+" CASCADE"); err != nil {
			t.Logf("drop schema %s: %v", name, err)
		}
	})
	return withParam(t, dsn, "search_path", name)
}

// withParam adds a connection parameter to a DSN in either of libpq's forms.
func withParam(t testing.TB, dsn, key, value string) string {
	t.Helper()
	if !strings.HasPrefix(dsn, "postgres://") && !strings.HasPrefix(dsn, "postgresql://") {
		return dsn + " " + key + "=" + value
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("test database URL: %v", err)
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String()
}

// Cluster is a throwaway PostgreSQL server owned by one test, on a free loopback port, with fsync
// off. It is stopped and deleted when the test ends.
type Cluster struct {
	URL  string // of database postgres, as user postgres (trust authentication)
	bin  string
	dir  string
	port int
	cred *syscall.Credential // PostgreSQL refuses to run as root: then it runs as user postgres
}

// NewCluster initialises and starts a cluster with the server programs testenv.PostgresBin finds
// (skipping the test where there are none, failing it under CI).
func NewCluster(t testing.TB) *Cluster {
	t.Helper()
	c := &Cluster{bin: testenv.PostgresBin(t)}
	var err error
	// not t.TempDir: its parents are private to root, and the server may run as another user
	if c.dir, err = os.MkdirTemp("", "hensachi-pg-"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := os.Stat(filepath.Join(c.dir, "data", "postmaster.pid")); err == nil {
			c.pgCtl("-m", "immediate", "stop")
		}
		os.RemoveAll(c.dir)
	})
	if os.Geteuid() == 0 {
		pg, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root, PostgreSQL needs the postgres user (apt-get install postgresql): %v", err)
		}
		uid, _ := strconv.Atoi(pg.Uid)
		gid, _ := strconv.Atoi(pg.Gid)
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(c.dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := c.command("initdb", "-D", c.data(), "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C").CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	c.port = freePort(t)
	c.URL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.port)
	c.Start(t)
	return c
}

// Start starts the server and waits until it accepts connections.
func (c *Cluster) Start(t testing.TB) {
	t.Helper()
	opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -k %s -c fsync=off -c synchronous_commit=off -c full_page_writes=off", c.port, c.dir)
	if out, err := c.pgCtl("-l", filepath.Join(c.dir, "server.log"), "-o", opts, "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "server.log"))
		t.Fatalf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
}

// Stop stops the server the fast way: open connections are closed at once, as when a database
// fails over or restarts.
func (c *Cluster) Stop(t testing.TB) {
	t.Helper()
	if out, err := c.pgCtl("-m", "fast", "stop"); err != nil {
		t.Fatalf("pg_ctl stop: %v\n%s", err, out)
	}
}

func (c *Cluster) data() string { return filepath.Join(c.dir, "data") }

func (c *Cluster) pgCtl(args ...string) ([]byte, error) {
	return c.command("pg_ctl", append([]string{"-D", c.data(), "-w", "-t", "60"}, args...)...).CombinedOutput()
}

func (c *Cluster) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(c.bin, name), args...)
	cmd.Dir = c.dir
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
		cmd.Env = append(os.Environ(), "HOME="+c.dir)
	}
	return cmd
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
