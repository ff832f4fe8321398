package main

import (
	"context"
	"fmt"
	"strings"
	"time"
)

func runAccountList(ctx context.Context, args []string) error {
	t, done, err := openAccountTool(ctx, "list", args, nil)
	if err != nil {
		return err
	}
	defer done()
	accounts, err := t.Store.Accounts(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintln(t.out, "ID\tEMAIL\tPLAN\tCREATED\tACTIVE KEY")
	for _, a := range accounts {
		keys, err := t.Store.Keys(ctx, a.ID)
		if err != nil {
			return err
		}
		hints := []string{}
		for _, k := range keys {
			if !k.Revoked() {
				hints = append(hints, "…"+k.Hint)
			}
		}
		fmt.Fprintf(t.out, "%d\t%s\t%s\t%s\t%s\n", a.ID, a.Email, a.Plan, a.CreatedAt.Format(time.DateOnly), strings.Join(hints, " "))
	}
	return nil
}
