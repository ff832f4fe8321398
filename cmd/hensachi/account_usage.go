package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/hensachi/hensachi"
)

func runAccountUsage(ctx context.Context, args []string) error {
	var who, day string
	t, done, err := openAccountTool(ctx, "usage", args, func(fs *flag.FlagSet) {
		accountFlag(fs, &who)
		fs.StringVar(&day, "day", "", "usage day YYYY-MM-DD (Asia/Tokyo), default today")
	})
	if err != nil {
		return err
	}
	defer done()
	if day == "" {
		day = hensachi.Day(time.Now())
	} else if _, err := time.Parse(time.DateOnly, day); err != nil {
		return errors.New("-day must be YYYY-MM-DD")
	}
	var id int64
	if who != "" {
		a, err := t.find(ctx, who)
		if err != nil {
			return err
		}
		id = a.ID
	}
	usage, err := t.Store.Usage(ctx, day, id)
	if err != nil {
		return err
	}
	fmt.Fprintf(t.out, "usage on %s (Asia/Tokyo; servers write counts every second)\nACCOUNT\tSERVICE\tCALLS\tDEFAULT LIMIT\n", day)
	for _, u := range usage {
		a, err := t.Store.Account(ctx, u.AccountID)
		if err != nil {
			return err
		}
		fmt.Fprintf(t.out, "%d %s\t%s\t%d\t%d\n", a.ID, a.Email, u.Service, u.Count, hensachi.DefaultLimits().Daily(a.Plan, u.Service))
	}
	return nil
}
