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

// Context is a request's context: its parent's, carrying the request's Info. A server embeds it in
// what it allocates per request anyway, so carrying the info costs no allocation of its own, as
// context.WithValue would.
type Context struct {
	context.Context
	Info Info
}

// Value returns the Info for this package's key and asks the parent for any other.
func (c *Context) Value(key any) any {
	if key == (ctxKey{}) {
		return &c.Info
	}
	return c.Context.Value(key)
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
