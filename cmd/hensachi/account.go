package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hensachi/hensachi"
)

// runAccount is the operator's tool for accounts, keys and usage.
func runAccount(ctx context.Context, args []string) error {
	const usage = `usage: hensachi account <create|list|plan|rotate|revoke|usage> [flags]
  create -email ADDR [-plan free|pro]   create an account and print its key (shown once)
  list                                  list accounts with plan and active key hints
  plan   -account ID|EMAIL -plan P      set the plan
  rotate -account ID|EMAIL              revoke the active key and print a new one
  revoke -account ID|EMAIL              revoke the active keys
  usage  [-account ID|EMAIL] [-day D]   calls per service on a Tokyo day (default today)`
	if len(args) == 0 {
		return fmt.Errorf("%s", usage)
	}
	fs := flag.NewFlagSet("account "+args[0], flag.ContinueOnError)
	db := dbFlag(fs)
	email := fs.String("email", "", "e-mail address of the account")
	plan := fs.String("plan", "", "plan: free or pro")
	who := fs.String("account", "", "account id or e-mail")
	day := fs.String("day", "", "usage day YYYY-MM-DD (Asia/Tokyo), default today")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	store, err := db.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	out := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	defer out.Flush()
	find := func() (hensachi.Account, error) {
		if *who == "" {
			return hensachi.Account{}, fmt.Errorf("-account is required")
		}
		if id, err := strconv.ParseInt(*who, 10, 64); err == nil {
			return store.Account(ctx, id)
		}
		return store.AccountByEmail(ctx, *who)
	}
	switch args[0] {
	case "create":
		if !strings.Contains(*email, "@") {
			return fmt.Errorf("-email must be an e-mail address")
		}
		p := hensachi.Plan(*plan)
		if *plan == "" {
			p = hensachi.PlanFree
		}
		if !p.Valid() {
			return fmt.Errorf("-plan must be free or pro")
		}
		key, stored := hensachi.NewAPIKey()
		a, _, err := store.CreateAccount(ctx, hensachi.Account{Email: *email, Plan: p}, stored)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "account\t%d\nemail\t%s\nplan\t%s\napi key\t%s\t(shown once; store it now)\n", a.ID, a.Email, a.Plan, key)
	case "list":
		accounts, err := store.Accounts(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintln(out, "ID\tEMAIL\tPLAN\tCREATED\tACTIVE KEY")
		for _, a := range accounts {
			keys, err := store.Keys(ctx, a.ID)
			if err != nil {
				return err
			}
			hints := []string{}
			for _, k := range keys {
				if !k.Revoked() {
					hints = append(hints, "…"+k.Hint)
				}
			}
			fmt.Fprintf(out, "%d\t%s\t%s\t%s\t%s\n", a.ID, a.Email, a.Plan, a.CreatedAt.Format(time.DateOnly), strings.Join(hints, " "))
		}
	case "plan":
		a, err := find()
		if err != nil {
			return err
		}
		if err := store.SetPlan(ctx, a.ID, hensachi.Plan(*plan)); err != nil {
			return err
		}
		fmt.Fprintf(out, "account %d (%s): plan %s → %s (servers pick it up within their key cache TTL)\n", a.ID, a.Email, a.Plan, *plan)
	case "rotate":
		a, err := find()
		if err != nil {
			return err
		}
		key, stored := hensachi.NewAPIKey()
		if _, err := store.RotateKey(ctx, a.ID, stored); err != nil {
			return err
		}
		fmt.Fprintf(out, "account %d (%s): previous keys revoked\napi key\t%s\t(shown once; store it now)\n", a.ID, a.Email, key)
	case "revoke":
		a, err := find()
		if err != nil {
			return err
		}
		n, err := store.RevokeKeys(ctx, a.ID)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "account %d (%s): %d key(s) revoked\n", a.ID, a.Email, n)
	case "usage":
		d := *day
		if d == "" {
			d = hensachi.Day(time.Now())
		} else if _, err := time.Parse(time.DateOnly, d); err != nil {
			return fmt.Errorf("-day must be YYYY-MM-DD")
		}
		var id int64
		if *who != "" {
			a, err := find()
			if err != nil {
				return err
			}
			id = a.ID
		}
		usage, err := store.Usage(ctx, d, id)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "usage on %s (Asia/Tokyo; servers write counts every second)\nACCOUNT\tSERVICE\tCALLS\tDEFAULT LIMIT\n", d)
		for _, u := range usage {
			a, err := store.Account(ctx, u.AccountID)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "%d %s\t%s\t%d\t%d\n", a.ID, a.Email, u.Service, u.Count, hensachi.DefaultLimits().Daily(a.Plan, u.Service))
		}
	default:
		return fmt.Errorf("%s", usage)
	}
	return nil
}
