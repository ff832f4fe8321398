package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
)

// runAccountOrigins shows or sets the web origins whose pages may use an account's keys (CORS);
// the account page sets the same list.
func runAccountOrigins(ctx context.Context, args []string) error {
	var set string
	var clear bool
	t, a, done, err := openForAccount(ctx, "origins", args, func(fs *flag.FlagSet) {
		fs.StringVar(&set, "set", "", "replace the list: origins separated by commas or spaces, e.g. https://app.example.com")
		fs.BoolVar(&clear, "clear", false, "empty the list: any origin may use the keys again")
	})
	if err != nil {
		return err
	}
	defer done()
	origins := a.Origins
	switch {
	case set != "" && clear:
		return errors.New("give -set or -clear, not both")
	case set != "" || clear:
		if origins, err = t.SetOrigins(ctx, a.ID, set); err != nil {
			return err
		}
		defer fmt.Fprintln(t.out, "(servers apply it within their key cache TTL)")
	}
	if len(origins) == 0 {
		fmt.Fprintf(t.out, "account %d (%s): any origin may use its keys\n", a.ID, a.Email)
		return nil
	}
	fmt.Fprintf(t.out, "account %d (%s): only pages of these origins may use its keys:\n  %s\n", a.ID, a.Email, strings.Join(origins, "\n  "))
	return nil
}
