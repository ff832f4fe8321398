package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/hensachi/hensachi"
)

func runAccountPlan(ctx context.Context, args []string) error {
	var plan string
	t, a, done, err := openForAccount(ctx, "plan", args, func(fs *flag.FlagSet) {
		fs.StringVar(&plan, "plan", "", "plan: free or pro")
	})
	if err != nil {
		return err
	}
	defer done()
	if err := t.Store.SetPlan(ctx, a.ID, hensachi.Plan(plan)); err != nil {
		return err
	}
	fmt.Fprintf(t.out, "account %d (%s): plan %s → %s (servers pick it up within their key cache TTL)\n", a.ID, a.Email, a.Plan, plan)
	return nil
}
