package main

import (
	"context"
	"flag"
	"fmt"
)

func runAccountRevoke(ctx context.Context, args []string) error {
	var who string
	t, done, err := openAccountTool(ctx, "revoke", args, func(fs *flag.FlagSet) { accountFlag(fs, &who) })
	if err != nil {
		return err
	}
	defer done()
	a, err := t.find(ctx, who)
	if err != nil {
		return err
	}
	n, err := t.Store.RevokeKeys(ctx, a.ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(t.out, "account %d (%s): %d key(s) revoked\n", a.ID, a.Email, n)
	return nil
}
