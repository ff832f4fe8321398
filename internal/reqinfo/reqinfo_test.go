package reqinfo

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"
)

type otherKey struct{}

func TestContext(t *testing.T) {
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), otherKey{}, "parent's"))
	c := &Context{Context: parent, Info: Info{ID: "r1"}}
	SetAccount(c, 7)
	if ID(c) != "r1" || c.Info.AccountID != 7 || c.Value(otherKey{}) != "parent's" {
		t.Errorf("ID %q, account %d, parent's value %v", ID(c), c.Info.AccountID, c.Value(otherKey{}))
	}
	// a context derived from it is cancelled with the parent and still carries the info
	child, stop := context.WithTimeout(c, time.Hour)
	defer stop()
	cancel()
	<-child.Done()
	if ID(child) != "r1" {
		t.Errorf("derived context: ID %q", ID(child))
	}
	if ID(context.Background()) != "" {
		t.Error("an id outside a request")
	}
}

// TestHandler: a record logged with a request's context carries its id, and its account once
// set, also through a logger with attributes of its own; one logged without does not.
func TestHandler(t *testing.T) {
	var out bytes.Buffer
	log := slog.New(NewHandler(slog.NewJSONHandler(&out, nil)))
	c := &Context{Context: context.Background(), Info: Info{ID: "r1"}}
	lines := func() []map[string]any {
		var got []map[string]any
		for line := range strings.Lines(out.String()) {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatal(err)
			}
			got = append(got, m)
		}
		out.Reset()
		return got
	}

	log.InfoContext(c, "before the account")
	SetAccount(c, 7)
	log.With("part", "pages").WarnContext(c, "after", "n", 1)
	log.InfoContext(context.Background(), "another context")
	log.Info("no context")
	got := lines()
	if len(got) != 4 {
		t.Fatalf("%d lines, want 4", len(got))
	}
	if got[0]["request_id"] != "r1" || got[0]["account"] != nil {
		t.Errorf("before the account is set: %v", got[0])
	}
	if got[1]["request_id"] != "r1" || got[1]["account"] != 7.0 || got[1]["part"] != "pages" || got[1]["n"] != 1.0 {
		t.Errorf("after the account is set: %v", got[1])
	}
	for _, m := range got[2:] {
		if _, ok := m["request_id"]; ok {
			t.Errorf("a record without a request's context: %v", m)
		}
		if _, ok := m["account"]; ok {
			t.Errorf("a record without a request's context: %v", m)
		}
	}

	// a level the next handler does not log is not logged
	quiet := slog.New(NewHandler(slog.NewJSONHandler(&out, &slog.HandlerOptions{Level: slog.LevelWarn})))
	quiet.InfoContext(c, "below the level")
	if out.Len() != 0 {
		t.Errorf("logged below the level: %s", out.String())
	}
}
