package main

import (
	"context"
	"flag"
	"fmt"
)

func runAccountRotate(ctx context.Context, args []string) error {
	var who string
	t, done, err := openAccountTool(ctx, "rotate", args, func(fs *flag.FlagSet) { accountFlag(fs, &who) })
	if err != nil {
		return err
	}
	defer done()
	a, err := t.find(ctx, who)
	if err != nil {
		return err
	}
	key, _, err := t.Rotate(ctx, a.ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(t.out, "account %d (%s): previous keys revoked\napi key\t%s\t(shown once; store it now)\n", a.ID, a.Email, key)
	return nil
}
