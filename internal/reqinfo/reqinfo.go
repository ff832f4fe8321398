// Package reqinfo carries what the log needs to know about a request through its context: the
// request id, and the account once a handler knows it. The HTTP server sets it up for every
// request; the handlers of every package read and complete it.
package reqinfo

import "context"

// Info is one request's identity for the log.
type Info struct {
	ID        string
	AccountID int64
}

type ctxKey struct{}

// NewContext returns ctx carrying info.
func NewContext(ctx context.Context, info *Info) context.Context {
	return context.WithValue(ctx, ctxKey{}, info)
}

// ID returns the request id in ctx, or "" outside a request.
func ID(ctx context.Context) string {
	if ri, ok := ctx.Value(ctxKey{}).(*Info); ok {
		return ri.ID
	}
	return ""
}

// SetAccount records the account a request acts for.
func SetAccount(ctx context.Context, id int64) {
	if ri, ok := ctx.Value(ctxKey{}).(*Info); ok {
		ri.AccountID = id
	}
}
