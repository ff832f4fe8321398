package main

import (
	"context"
	"fmt"
)

func runAccountRotate(ctx context.Context, args []string) error {
	t, a, done, err := openForAccount(ctx, "rotate", args, nil)
	if err != nil {
		return err
	}
	defer done()
	key, _, err := t.Rotate(ctx, a.ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(t.out, "account %d (%s): previous keys revoked\napi key\t%s\t(shown once; store it now)\n", a.ID, a.Email, key)
	return nil
}
