package town

import (
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/dataset"
)

// Catalogs keeps the catalog of the dataset file being served, derived again each time the file
// is replaced (see dataset.Holder for the swap and the reference counts). Both transports read the
// current one with Catalog.
type Catalogs struct {
	*dataset.Holder[*Catalog]
}

// Open maps the dataset at path and derives its catalog; baseURL is where users reach the pages.
func Open(path, baseURL string) (*Catalogs, error) {
	h, err := dataset.NewHolder(path, func(ds *dataset.Dataset) *Catalog { return FromDataset(ds, baseURL) })
	if err != nil {
		return nil, err
	}
	return &Catalogs{h}, nil
}

// Catalog returns the current catalog. It holds its own copies, so the caller may keep reading it
// after a new dataset swaps in, without holding a reference to the snapshot.
func (h *Catalogs) Catalog() (*Catalog, error) {
	snap := h.Acquire()
	if snap == nil {
		return nil, hensachi.Errorf(hensachi.EUnavailable, "the server is shutting down").RetryIn(time.Second)
	}
	defer snap.Release()
	return snap.Derived, nil
}
