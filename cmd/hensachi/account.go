package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/cmd/internal/cli"
)

// accountCommands are the operator's tools for accounts, keys and usage, one file each.
var accountCommands = []struct {
	name, flags, summary string
	run                  func(ctx context.Context, args []string) error
}{
	{"create", "-email ADDR [-plan free|pro]", "create an account and print its key (shown once)", runAccountCreate},
	{"list", "", "list accounts with plan and active key hints", runAccountList},
	{"plan", "-account ID|EMAIL -plan P", "set the plan", runAccountPlan},
	{"rotate", "-account ID|EMAIL", "revoke the active keys and print a new one", runAccountRotate},
	{"revoke", "-account ID|EMAIL", "revoke the active keys", runAccountRevoke},
	{"usage", "[-account ID|EMAIL] [-day D]", "calls per service on a Tokyo day (default today)", runAccountUsage},
	{"origins", "-account ID|EMAIL [-set LIST|-clear]", "show or set the web origins whose pages may use the keys", runAccountOrigins},
}

func runAccount(ctx context.Context, args []string) error {
	if len(args) > 0 {
		for _, c := range accountCommands {
			if c.name == args[0] {
				return c.run(ctx, args[1:])
			}
		}
	}
	var b strings.Builder
	b.WriteString("usage: hensachi account <command> [flags]")
	for _, c := range accountCommands {
		fmt.Fprintf(&b, "\n  %-7s %-37s %s", c.name, c.flags, c.summary)
	}
	switch {
	case len(args) > 0 && cli.IsHelp(args[0]):
		fmt.Fprintln(os.Stderr, b.String())
		return flag.ErrHelp
	case len(args) > 0:
		return fmt.Errorf("unknown command %q\n%s", args[0], b.String())
	}
	return errors.New(b.String())
}

// accountTool is what an account subcommand works with: the account use cases on the selected
// store, and a table writer for its output.
type accountTool struct {
	hensachi.Accounts
	out *tabwriter.Writer
}

// openAccountTool parses a subcommand's flags (define adds its own to the store flags) and opens
// the store; done flushes the output and closes the store.
func openAccountTool(ctx context.Context, name string, args []string, define func(fs *flag.FlagSet)) (t *accountTool, done func(), err error) {
	fs := flag.NewFlagSet("account "+name, flag.ContinueOnError)
	db := dbFlag(fs)
	if define != nil {
		define(fs)
	}
	if err := fs.Parse(args); err != nil {
		return nil, nil, err
	}
	store, err := db.open(ctx)
	if err != nil {
		return nil, nil, err
	}
	t = &accountTool{Accounts: hensachi.Accounts{Store: store, Now: time.Now},
		out: tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)}
	return t, func() { t.out.Flush(); store.Close() }, nil
}

// accountFlag is the -account flag of the subcommands that act on one account.
func accountFlag(fs *flag.FlagSet, who *string) {
	fs.StringVar(who, "account", "", "account id or e-mail")
}

// find resolves the -account flag.
func (t *accountTool) find(ctx context.Context, who string) (hensachi.Account, error) {
	if who == "" {
		return hensachi.Account{}, errors.New("-account is required")
	}
	return t.Find(ctx, who)
}

// openForAccount is openAccountTool for a subcommand that acts on the one account -account names.
func openForAccount(ctx context.Context, name string, args []string, define func(fs *flag.FlagSet)) (*accountTool, hensachi.Account, func(), error) {
	var who string
	t, done, err := openAccountTool(ctx, name, args, func(fs *flag.FlagSet) {
		accountFlag(fs, &who)
		if define != nil {
			define(fs)
		}
	})
	if err != nil {
		return nil, hensachi.Account{}, nil, err
	}
	a, err := t.find(ctx, who)
	if err != nil {
		done()
		return nil, hensachi.Account{}, nil, err
	}
	return t, a, done, nil
}
