package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/hensachi/hensachi"
)

func runAccountCreate(ctx context.Context, args []string) error {
	var email, plan string
	t, done, err := openAccountTool(ctx, "create", args, func(fs *flag.FlagSet) {
		fs.StringVar(&email, "email", "", "e-mail address of the account")
		fs.StringVar(&plan, "plan", string(hensachi.PlanFree), "plan: free or pro")
	})
	if err != nil {
		return err
	}
	defer done()
	a, key, err := t.Create(ctx, email, hensachi.Plan(plan))
	if err != nil {
		return err
	}
	fmt.Fprintf(t.out, "account\t%d\nemail\t%s\nplan\t%s\napi key\t%s\t(shown once; store it now)\n", a.ID, a.Email, a.Plan, key)
	return nil
}
