// Package reqinfo carries what the log needs to know about a request through its context: the
// request id, and the account once a handler knows it. The HTTP server sets it up for every
// request; the handlers of every package read and complete it, and the log's Handler adds both to
// every record logged with the request's context.
package reqinfo

import (
	"context"
	"log/slog"
)

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

// Handler is a log handler that adds to every record logged with a request's context the request
// id (request_id) and, once a handler has recorded it, the account (account), so that no call
// names them itself. A record logged without such a context (slog.Info rather than
// slog.InfoContext, or outside a request) is passed on as it is. Under a group (WithGroup) the
// two attributes land in the group, as the record's own do.
type Handler struct {
	next slog.Handler
}

// NewHandler returns a Handler that passes records on to next.
func NewHandler(next slog.Handler) *Handler { return &Handler{next: next} }

// Enabled is next's.
func (h *Handler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

// Handle adds the request's id and account to r and passes it on.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	if ri, ok := ctx.Value(ctxKey{}).(*Info); ok && ri.ID != "" {
		// r is this call's copy, which the logger does not use again: adding to it is safe
		r.AddAttrs(slog.String("request_id", ri.ID))
		if ri.AccountID != 0 {
			r.AddAttrs(slog.Int64("account", ri.AccountID))
		}
	}
	return h.next.Handle(ctx, r)
}

// WithAttrs returns a Handler over next's WithAttrs.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &Handler{next: h.next.WithAttrs(attrs)}
}

// WithGroup returns a Handler over next's WithGroup.
func (h *Handler) WithGroup(name string) slog.Handler {
	return &Handler{next: h.next.WithGroup(name)}
}
