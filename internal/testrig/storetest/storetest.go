// Package storetest checks that a hensachi.Store behaves as the interface documents; every store
// backend runs it against a real database. CreateAccount is a helper for the tests of the packages
// that use a store.
package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/hensachi/hensachi"
)

// Run runs the conformance tests; open must return an empty store.
func Run(t *testing.T, open func(t *testing.T) hensachi.Store) {
	ctx := context.Background()
	t.Run("accounts and keys", func(t *testing.T) {
		s := open(t)
		key, stored := hensachi.NewAPIKey()
		a, k, err := s.CreateAccount(ctx, hensachi.Account{Email: "a@example.com", Plan: hensachi.PlanFree,
			TermsVersion: "2026-01", TermsAcceptedAt: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}, stored)
		if err != nil {
			t.Fatal(err)
		}
		if a.ID == 0 || k.ID == 0 || k.AccountID != a.ID || a.CreatedAt.IsZero() {
			t.Fatalf("created %+v with key %+v", a, k)
		}
		if _, _, err := s.CreateAccount(ctx, hensachi.Account{Email: "a@example.com", Plan: hensachi.PlanFree}, stored); hensachi.ErrorCode(err) != hensachi.EConflict {
			t.Errorf("second account with the same e-mail: %v", err)
		}
		gotKey, gotAcct, err := s.KeyByHash(ctx, hensachi.HashAPIKey(key))
		if err != nil || gotAcct.ID != a.ID || gotAcct.Email != "a@example.com" || gotKey.Revoked() || gotKey.Hint != key[len(key)-4:] || gotAcct.TermsVersion != "2026-01" || !gotAcct.TermsAcceptedAt.Equal(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("KeyByHash = %+v, %+v, %v", gotKey, gotAcct, err)
		}
		if _, _, err := s.KeyByHash(ctx, [32]byte{1}); hensachi.ErrorCode(err) != hensachi.ENotFound {
			t.Errorf("unknown hash: %v", err)
		}
		byEmail, err := s.AccountByEmail(ctx, "a@example.com")
		if err != nil || byEmail.ID != a.ID {
			t.Errorf("AccountByEmail = %+v, %v", byEmail, err)
		}
		if _, err := s.Account(ctx, 999); hensachi.ErrorCode(err) != hensachi.ENotFound {
			t.Errorf("unknown account: %v", err)
		}

		newKey, newStored := hensachi.NewAPIKey()
		if _, err := s.RotateKey(ctx, a.ID, newStored); err != nil {
			t.Fatal(err)
		}
		if old, _, _ := s.KeyByHash(ctx, hensachi.HashAPIKey(key)); !old.Revoked() {
			t.Error("rotation left the old key active")
		}
		if cur, _, _ := s.KeyByHash(ctx, hensachi.HashAPIKey(newKey)); cur.Revoked() {
			t.Error("rotated-in key is revoked")
		}
		if _, err := s.RotateKey(ctx, 999, newStored); hensachi.ErrorCode(err) != hensachi.ENotFound {
			t.Errorf("rotate for an unknown account: %v", err)
		}
		n, err := s.RevokeKeys(ctx, a.ID)
		if err != nil || n != 1 {
			t.Errorf("RevokeKeys = %d, %v; want 1", n, err)
		}
		keys, err := s.Keys(ctx, a.ID)
		if err != nil || len(keys) != 2 || !keys[0].Revoked() || !keys[1].Revoked() {
			t.Errorf("Keys = %+v, %v", keys, err)
		}

		if err := s.SetPlan(ctx, a.ID, hensachi.PlanPro); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Account(ctx, a.ID); got.Plan != hensachi.PlanPro {
			t.Errorf("plan %s after SetPlan(pro)", got.Plan)
		}
		if err := s.SetPlan(ctx, a.ID, "gold"); hensachi.ErrorCode(err) != hensachi.EInvalidParameter {
			t.Errorf("unknown plan: %v", err)
		}
		if err := s.SetPlan(ctx, 999, hensachi.PlanPro); hensachi.ErrorCode(err) != hensachi.ENotFound {
			t.Errorf("plan of an unknown account: %v", err)
		}
		all, err := s.Accounts(ctx)
		if err != nil || len(all) != 1 {
			t.Errorf("Accounts = %+v, %v", all, err)
		}
	})
	t.Run("terms", func(t *testing.T) {
		s := open(t)
		_, stored := hensachi.NewAPIKey()
		a, _, err := s.CreateAccount(ctx, hensachi.Account{Email: "t@example.com", Plan: hensachi.PlanFree}, stored)
		if err != nil {
			t.Fatal(err)
		}
		if a.TermsVersion != "" || !a.TermsAcceptedAt.IsZero() {
			t.Fatalf("an operator-made account has accepted terms: %+v", a)
		}
		for _, v := range []struct {
			version string
			at      time.Time
		}{
			{"2026-11", time.Date(2026, 11, 2, 3, 4, 5, 600_000_000, time.UTC)},
			{"2027-01", time.Date(2027, 1, 2, 3, 4, 5, 0, hensachi.Tokyo)}, // a later version replaces it
		} {
			if err := s.AcceptTerms(ctx, a.ID, v.version, v.at); err != nil {
				t.Fatal(err)
			}
			got, err := s.Account(ctx, a.ID)
			if err != nil || got.TermsVersion != v.version || !got.TermsAcceptedAt.Equal(v.at) {
				t.Errorf("after AcceptTerms(%s, %s): %+v, %v", v.version, v.at, got, err)
			}
		}
		if err := s.AcceptTerms(ctx, 999, "2026-11", time.Now()); hensachi.ErrorCode(err) != hensachi.ENotFound {
			t.Errorf("AcceptTerms for an unknown account: %v", err)
		}
	})
	t.Run("origins", func(t *testing.T) { origins(t, open(t)) })
	t.Run("usage", func(t *testing.T) {
		s := open(t)
		_, stored := hensachi.NewAPIKey()
		a, _, err := s.CreateAccount(ctx, hensachi.Account{Email: "u@example.com", Plan: hensachi.PlanFree}, stored)
		if err != nil {
			t.Fatal(err)
		}
		day := "2026-11-22"
		town := hensachi.UsageKey{AccountID: a.ID, Service: hensachi.ServiceTown, Day: day}
		face := hensachi.UsageKey{AccountID: a.ID, Service: hensachi.ServiceFace, Day: day}
		for _, d := range [][]hensachi.Usage{{{UsageKey: town, Count: 3}}, {{UsageKey: town, Count: 4}, {UsageKey: face, Count: 1}}} {
			if err := s.AddUsage(ctx, d); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.Usage(ctx, day, a.ID)
		if err != nil || len(got) != 2 {
			t.Fatalf("Usage = %+v, %v", got, err)
		}
		counts := map[hensachi.Service]int64{}
		for _, u := range got {
			counts[u.Service] = u.Count
		}
		if counts[hensachi.ServiceTown] != 7 || counts[hensachi.ServiceFace] != 1 {
			t.Errorf("counts %v, want town 7 face 1", counts)
		}
		if other, _ := s.Usage(ctx, "2026-11-23", 0); len(other) != 0 {
			t.Errorf("another day has %+v", other)
		}
		if err := s.Ping(ctx); err != nil {
			t.Errorf("Ping: %v", err)
		}
	})
	t.Run("quota leases", func(t *testing.T) { quota(t, open) })
	t.Run("quota lease expiry", func(t *testing.T) { quotaLeaseExpiry(t, open) })
}
