package storetest

import (
	"context"
	"testing"

	"github.com/hensachi/hensachi"
)

// CreateAccount creates an account as the operator does (`hensachi account create`), with email
// and plan and no terms accepted, and returns its key; it ends the test when the store refuses.
// It is for the tests of the packages that use a store, not a check of one.
func CreateAccount(t testing.TB, store hensachi.Store, email string, plan hensachi.Plan) (string, hensachi.Account) {
	t.Helper()
	key, stored := hensachi.NewAPIKey()
	a, _, err := store.CreateAccount(context.Background(), hensachi.Account{Email: email, Plan: plan}, stored)
	if err != nil {
		t.Fatal(err)
	}
	return key, a
}
