package hensachi_test

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/sqlite"
)

func newAccounts(t *testing.T, now *time.Time) hensachi.Accounts {
	t.Helper()
	store, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "hensachi.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return hensachi.Accounts{Store: store, Now: func() time.Time { return *now }}
}

func TestLogIn(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	accounts := newAccounts(t, &now)

	first, key, err := accounts.LogIn(ctx, "new@example.com", "v1")
	if err != nil || key == "" {
		t.Fatalf("first login: key %q, %v", key, err)
	}
	if first.Plan != hensachi.PlanFree || first.TermsVersion != "v1" || !first.TermsAcceptedAt.Equal(now) {
		t.Errorf("first login made %+v", first)
	}
	if !hensachi.CheckAPIKey(key) {
		t.Errorf("first login key %q is not a well-formed key", key)
	}

	now = now.Add(time.Hour)
	again, key, err := accounts.LogIn(ctx, "new@example.com", "v1")
	if err != nil || key != "" || again.ID != first.ID {
		t.Fatalf("second login: account %d (first %d), key %q, %v", again.ID, first.ID, key, err)
	}
	stored, _ := accounts.Store.Account(ctx, first.ID)
	if !stored.TermsAcceptedAt.Equal(first.TermsAcceptedAt) {
		t.Errorf("a login with the same terms moved the acceptance to %v", stored.TermsAcceptedAt)
	}

	newer, _, err := accounts.LogIn(ctx, "new@example.com", "v2")
	if err != nil || newer.TermsVersion != "v2" {
		t.Fatalf("login under new terms: %+v, %v", newer, err)
	}
	stored, _ = accounts.Store.Account(ctx, first.ID)
	if stored.TermsVersion != "v2" || !stored.TermsAcceptedAt.Equal(now) {
		t.Errorf("new terms not recorded: %+v", stored)
	}
}

func TestCreateAndRotate(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	accounts := newAccounts(t, &now)
	for _, c := range []struct {
		email string
		plan  hensachi.Plan
		param string
	}{{"not-an-address", hensachi.PlanFree, "email"}, {"a@example.com", "gold", "plan"}} {
		_, _, err := accounts.Create(ctx, c.email, c.plan)
		var e *hensachi.Error
		if !errors.As(err, &e) || e.Code != hensachi.EInvalidParameter || e.Param != c.param {
			t.Errorf("Create(%q, %q): %v, want invalid %s", c.email, c.plan, err, c.param)
		}
	}
	a, key, err := accounts.Create(ctx, "ops@example.com", hensachi.PlanPro)
	if err != nil || key == "" || a.Plan != hensachi.PlanPro || a.TermsVersion != "" {
		t.Fatalf("create: %+v key %q, %v", a, key, err)
	}
	if found, err := accounts.Find(ctx, "ops@example.com"); err != nil || found.ID != a.ID {
		t.Errorf("find by e-mail: %+v, %v", found, err)
	}
	if found, err := accounts.Find(ctx, strconv.FormatInt(a.ID, 10)); err != nil || found.Email != a.Email {
		t.Errorf("find by id: %+v, %v", found, err)
	}
	newKey, revoked, err := accounts.Rotate(ctx, a.ID)
	if err != nil || newKey == key || len(revoked) != 1 {
		t.Fatalf("rotate: new key equal %v, %d revoked, %v", newKey == key, len(revoked), err)
	}
	keys, _ := accounts.Store.Keys(ctx, a.ID)
	active := 0
	for _, k := range keys {
		if !k.Revoked() {
			active++
		}
	}
	if active != 1 || revoked[0].Hash != hensachi.HashAPIKey(key) {
		t.Errorf("after rotation %d active keys; revoked the old key: %v", active, revoked[0].Hash == hensachi.HashAPIKey(key))
	}
}

// TestEmailChecked gives both ways of creating an account addresses that are not bare addresses:
// each is refused with invalid_parameter on "email", and no account is made.
func TestEmailChecked(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	accounts := newAccounts(t, &now)
	for _, bad := range []string{
		"x@example.com<svg/onload=alert(1)>",
		"<x@example.com>",
		"X <x@example.com>",
		`"X" <x@example.com>`,
		"x@example.com (comment)",
		" x@example.com",
		"x@example.com\n",
		"x@example.com, y@example.com",
		"x",
		"@example.com",
		"x@",
		"",
		`"a b"@example.com`,
		"x@" + strings.Repeat("a", 250) + ".com",
	} {
		if _, _, err := accounts.Create(ctx, bad, hensachi.PlanFree); hensachi.ErrorCode(err) != hensachi.EInvalidParameter {
			t.Errorf("Create(%q): %v", bad, err)
		}
		if _, _, err := accounts.LogIn(ctx, bad, "v1"); hensachi.ErrorCode(err) != hensachi.EInvalidParameter {
			t.Errorf("LogIn(%q): %v", bad, err)
		}
		if _, err := accounts.Find(ctx, bad); hensachi.ErrorCode(err) != hensachi.ENotFound {
			t.Errorf("%q: an account was made (%v)", bad, err)
		}
	}
	for _, good := range []string{"x@example.com", "first.last+tag@sub.example.co.jp"} {
		if _, _, err := accounts.Create(ctx, good, hensachi.PlanFree); err != nil {
			t.Errorf("Create(%q): %v", good, err)
		}
	}
}
