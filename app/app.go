// Package app assembles the server from its parts: the dataset's read model, the daily quota, the
// key cache, the public pages, the account pages, the face calls and the server over them.
// cmd/hensachi and the tests build it the same way, through Build; what differs between them (the
// store, the dataset, the limits, the clock, the face analyzer…) is in Config.
package app

import (
	"context"
	"fmt"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/facecall"
	"github.com/hensachi/hensachi/quota"
	"github.com/hensachi/hensachi/serve"
	"github.com/hensachi/hensachi/town"
	"github.com/hensachi/hensachi/web/account"
	"github.com/hensachi/hensachi/web/site"
)

// Config is what varies between servers. The zero value of each optional field picks the
// default of the part it configures.
type Config struct {
	// Server is the server's own settings (address, public URL, limits, clock, watch interval,
	// access log, debug address, connection cap, upload pace) and the account store, which every
	// part shares: PublicURL, Store, Limits and Now configure the other parts too. Build makes
	// the server's other parts (Keys, Quota, Catalogs, Faces, Pages); what the caller put there is
	// ignored.
	Server serve.Config
	// DatasetPath is the dataset file the statistics service serves; empty: no statistics service.
	DatasetPath string
	// KeyCacheTTL is how long a key lookup is cached (serve.NewKeyCache).
	KeyCacheTTL time.Duration
	// Faces configures the face calls; a nil Faces.Analyzer runs no face service. Build gives them
	// the server's quota (Faces.Quota). The analyzer and the upload store belong to the caller.
	Faces facecall.Config
	// Login configures the account pages; its zero value turns logging in off.
	Login account.Config
}

// App is a server and the parts Build made for it, which Close closes once the server has stopped.
type App struct {
	*serve.Server
	Catalogs *town.Catalogs // nil: no statistics service
	Quota    *serve.Quota
	Keys     *serve.KeyCache
	Faces    *facecall.Service // nil: no face service

	closers []func()
}

// Build makes the parts in cfg's order of dependence — the dataset's read model, the quota, the
// key cache, the public pages, the face calls, the account pages — and the server over them. On
// error it closes what it made.
func Build(ctx context.Context, cfg Config) (_ *App, err error) {
	a := &App{}
	defer func() {
		if err != nil {
			a.Close()
		}
	}()
	sc := cfg.Server
	if sc.Now == nil {
		sc.Now = time.Now
	}
	if sc.Limits == nil {
		sc.Limits = hensachi.DefaultLimits()
	}
	sc.Keys, sc.Quota, sc.Catalogs, sc.Faces, sc.Pages = nil, nil, nil, nil, nil
	if cfg.DatasetPath != "" {
		if a.Catalogs, err = town.Open(cfg.DatasetPath, sc.PublicURL); err != nil {
			return nil, err
		}
		a.onClose(a.Catalogs.Close)
		sc.Catalogs = a.Catalogs
	}
	enforcer, err := quota.New(ctx, sc.Store, sc.Limits, sc.Now)
	if err != nil {
		return nil, fmt.Errorf("load usage counts: %w", err)
	}
	a.Quota, a.Keys = serve.NewQuota(enforcer), serve.NewKeyCache(sc.Store, cfg.KeyCacheTTL)
	sc.Quota, sc.Keys = a.Quota, a.Keys
	siteDeps := site.Deps{PublicURL: sc.PublicURL, OpenAPI: serve.OpenAPI(), Login: cfg.Login.Enabled()}
	if a.Catalogs != nil {
		siteDeps.Catalogs = a.Catalogs // a nil *town.Catalogs would be a non-nil site.Catalogs
	}
	public, err := site.New(siteDeps)
	if err != nil {
		return nil, err
	}
	accountDeps := account.Deps{PublicURL: sc.PublicURL, Accounts: hensachi.Accounts{Store: sc.Store, Now: sc.Now},
		Usage: a.Quota, Limits: sc.Limits, ForgetKeys: a.Keys.Forget, Credit: public.Credit, Now: sc.Now}
	if cfg.Faces.Analyzer != nil {
		faces := cfg.Faces
		faces.Quota = a.Quota
		a.Faces = facecall.New(faces)
		sc.Faces = a.Faces
		accountDeps.Faces = account.FaceCalls{Calls: a.Faces, Limits: sc.Limits}
	}
	accounts, err := account.New(cfg.Login, accountDeps)
	if err != nil {
		return nil, err
	}
	a.onClose(accounts.Close)
	sc.Pages = []serve.Pages{public, accounts}
	if a.Server, err = serve.New(sc); err != nil {
		return nil, err
	}
	return a, nil
}

// onClose adds a part's Close to those Close calls.
func (a *App) onClose(close func()) { a.closers = append(a.closers, close) }

// Close closes the parts Build made, the last made first. The server must have stopped: Run or
// ListenAndServe returned.
func (a *App) Close() {
	for i := len(a.closers) - 1; i >= 0; i-- {
		a.closers[i]()
	}
	a.closers = nil
}
