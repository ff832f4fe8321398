package storetest

import (
	"context"
	"slices"
	"testing"

	"github.com/hensachi/hensachi"
)

// origins checks an account's origin allow-list: none at first, set and read back in order by
// every read of the account (by id, by e-mail, in the list, with a key), cleared by an empty list.
func origins(t *testing.T, s hensachi.Store) {
	ctx := context.Background()
	key, a := CreateAccount(t, s, "o@example.com", hensachi.PlanFree)
	hash := hensachi.HashAPIKey(key)
	reads := map[string]func() (hensachi.Account, error){
		"Account":        func() (hensachi.Account, error) { return s.Account(ctx, a.ID) },
		"AccountByEmail": func() (hensachi.Account, error) { return s.AccountByEmail(ctx, a.Email) },
		"KeyByHash": func() (hensachi.Account, error) {
			_, acct, err := s.KeyByHash(ctx, hash)
			return acct, err
		},
		"Accounts": func() (hensachi.Account, error) {
			all, err := s.Accounts(ctx)
			if err != nil || len(all) != 1 {
				return hensachi.Account{}, err
			}
			return all[0], nil
		},
	}
	check := func(when string, want []string) {
		t.Helper()
		for name, read := range reads {
			got, err := read()
			if err != nil || !slices.Equal(got.Origins, want) || (len(want) == 0 && got.Origins != nil) {
				t.Errorf("%s: %s gives origins %q (%v), want %q", when, name, got.Origins, err, want)
			}
		}
	}
	check("a new account", nil)
	list := []string{"https://b.example.com", "http://localhost:5173", "https://a.example.com"}
	if err := s.SetOrigins(ctx, a.ID, list); err != nil {
		t.Fatal(err)
	}
	check("after SetOrigins", list)
	if err := s.SetOrigins(ctx, a.ID, nil); err != nil {
		t.Fatal(err)
	}
	check("after clearing", nil)
	if err := s.SetOrigins(ctx, 999, list); hensachi.ErrorCode(err) != hensachi.ENotFound {
		t.Errorf("SetOrigins for an unknown account: %v", err)
	}
}
