package town

import "sync"

// Memo is something derived from a catalog on first use and kept with it, such as the API's
// encoded bodies (package serve) or the bulk files (package export): built once per dataset
// version, whichever transport asks first, and gone with the catalog when a new version has
// replaced it and no reader holds it. The catalog does not know what it keeps.
type Memo[T any] struct {
	build func(*Catalog) T
}

// NewMemo returns the memo of what build derives from a catalog; make it once, at package level.
func NewMemo[T any](build func(*Catalog) T) *Memo[T] {
	return &Memo[T]{build: build}
}

type memoEntry struct {
	once  sync.Once
	value any
}

// Of returns what the memo derives from c, building it on the first call for c; concurrent first
// calls wait for the one build.
func (m *Memo[T]) Of(c *Catalog) T {
	e, ok := c.memos.Load(m)
	if !ok {
		e, _ = c.memos.LoadOrStore(m, new(memoEntry))
	}
	entry := e.(*memoEntry)
	entry.once.Do(func() { entry.value = m.build(c) })
	return entry.value.(T)
}
