package main

import (
	"context"
	"fmt"
)

func runAccountRevoke(ctx context.Context, args []string) error {
	t, a, done, err := openForAccount(ctx, "revoke", args, nil)
	if err != nil {
		return err
	}
	defer done()
	n, err := t.Store.RevokeKeys(ctx, a.ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(t.out, "account %d (%s): %d key(s) revoked\n", a.ID, a.Email, n)
	return nil
}
