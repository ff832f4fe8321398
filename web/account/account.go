// Package account serves the pages of the people who hold an API key: logging in with an identity
// provider (OpenID Connect), the session and login cookies, the account page with the key and the
// day's usage, the key mail, and the face demo, which runs as a face API call of the account. It
// receives the narrow parts of the server it needs (Deps) and never the server itself.
package account

import (
	"context"
	"crypto/rand"
	"embed"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/julienschmidt/httprouter"
	"golang.org/x/time/rate"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/reqinfo"
	"github.com/hensachi/hensachi/mail"
	"github.com/hensachi/hensachi/oidc"
	"github.com/hensachi/hensachi/web/page"
)

// Config configures logging in with an identity provider (OpenID Connect) and the account
// pages. Without a ClientID the login routes answer that login is not configured, and the APIs
// work with keys made by the operator tool.
type Config struct {
	// ClientID empty: the server takes no logins (Enabled), and the login and account pages say so.
	Issuer       string // default oidc.GoogleIssuer
	ClientID     string
	ClientSecret string
	// SessionSecret signs the session and login cookies; at least 32 bytes. Empty: a random one
	// per process, so sessions do not survive a restart or span replicas.
	SessionSecret []byte
	TermsVersion  string // recorded as accepted at each login; required with a ClientID
	TermsURL      string // optional link to the terms
	// Mailer sends keys to the verified address; nil: keys are only shown.
	Mailer mail.Sender
	// ClientIPHeader names the header a trusted reverse proxy puts the client's address in (e.g.
	// X-Forwarded-For, X-Real-IP); empty: the connection's peer address.
	ClientIPHeader string
	LoginRate      rate.Limit    // login requests per second per client address; default 1 per 6 s
	LoginBurst     int           // default 20
	SessionTTL     time.Duration // default 12 h
	// OIDC adjusts the relying party (HTTP client, leeway, key refresh bounds) for tests.
	OIDC func(*oidc.Config)
	// Development says the issuer is the embedded development provider (package devidp): the login
	// page warns that it is for development only.
	Development bool
}

// Deps are the parts of the server the pages use.
type Deps struct {
	PublicURL string // where users reach the server, e.g. https://hensachi.example
	Accounts  hensachi.Accounts
	Usage     UsageCounter
	Limits    hensachi.Limits
	// ForgetKeys tells the server to drop what it remembers of keys (KeyCache.Forget): those a
	// rotation revoked, so it stops accepting them at once, and an account's whose origin
	// allow-list changed, so the new list applies at once.
	ForgetKeys func([]hensachi.APIKey)
	Faces      FaceAnalyzer // nil: the face demo page says the service does not run here
	// Credit gives the dataset's source credit for the demo page's footer; nil: none.
	Credit func() hensachi.Link
	Now    func() time.Time
}

// UsageCounter is the day's count of calls as the server's quota knows it, including calls not
// yet written to the store.
type UsageCounter interface {
	Used(accountID int64, service hensachi.Service) int64
}

// Pages serves the login, account and demo pages.
type Pages struct {
	deps     Deps
	cfg      Config
	provider *oidc.Provider // nil: login not configured
	jar      *cookieJar
	limiter  *addrLimiter
	cop      *http.CrossOriginProtection
	name     string // the provider as users know it, e.g. Google
}

// maxLimitedAddrs bounds the login rate limiter's map.
const maxLimitedAddrs = 10_000

// New prepares the pages; with a Config without ClientID the login pages say that login is
// not configured.
// Enabled reports whether the configuration names an identity provider to log in with.
func (c Config) Enabled() bool { return c.ClientID != "" }

func New(cfg Config, deps Deps) (*Pages, error) {
	w := &Pages{deps: deps, cfg: cfg}
	if !cfg.Enabled() {
		return w, nil
	}
	if cfg.Issuer == "" {
		cfg.Issuer = oidc.GoogleIssuer
	}
	if cfg.TermsVersion == "" {
		return nil, errors.New("login: a terms version is required, since logging in accepts the terms")
	}
	pub, err := url.Parse(deps.PublicURL)
	if err != nil || (pub.Scheme != "https" && pub.Scheme != "http") || pub.Host == "" {
		return nil, fmt.Errorf("login: public URL %q must be http(s)://host", deps.PublicURL)
	}
	secret := cfg.SessionSecret
	switch {
	case len(secret) == 0:
		secret = []byte(rand.Text() + rand.Text())
		slog.Warn("no session secret set (-session-secret / HENSACHI_SESSION_SECRET): using a random one, so logins do not survive a restart or span replicas")
	case len(secret) < 32:
		return nil, errors.New("login: the session secret must be at least 32 bytes")
	}
	if cfg.LoginRate == 0 {
		cfg.LoginRate = rate.Every(6 * time.Second)
	}
	if cfg.LoginBurst == 0 {
		cfg.LoginBurst = 20
	}
	if cfg.SessionTTL == 0 {
		cfg.SessionTTL = 12 * time.Hour
	}
	if cfg.Mailer == nil {
		slog.Warn("no SMTP server configured (-smtp-addr): API keys are shown once but not mailed")
	}
	oc := oidc.Config{Issuer: cfg.Issuer, ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret,
		RedirectURL: strings.TrimSuffix(deps.PublicURL, "/") + "/auth/callback", Now: deps.Now}
	if cfg.OIDC != nil {
		cfg.OIDC(&oc)
	}
	if w.provider, err = oidc.New(oc); err != nil {
		return nil, fmt.Errorf("login: %w", err)
	}
	w.cfg = cfg
	w.jar = newCookieJar(secret, pub.Scheme == "https")
	w.limiter = newAddrLimiter(cfg.LoginRate, cfg.LoginBurst, maxLimitedAddrs)
	// Go's cross-origin protection refuses a POST a browser marks as cross-site (Sec-Fetch-Site,
	// else Origin against Host): a second line behind the forms' CSRF tokens
	w.cop = http.NewCrossOriginProtection()
	if err := w.cop.AddTrustedOrigin(pub.Scheme + "://" + pub.Host); err != nil {
		w.provider.Close()
		return nil, fmt.Errorf("login: %w", err)
	}
	w.name = cfg.Issuer
	if iss, err := url.Parse(cfg.Issuer); err == nil {
		w.name = iss.Host
	}
	if strings.TrimSuffix(cfg.Issuer, "/") == oidc.GoogleIssuer {
		w.name = "Google"
	}
	if cfg.Development {
		w.name = "開発用プロバイダー"
	}
	return w, nil
}

// Close stops the identity provider's key refresh.
func (w *Pages) Close() {
	if w.provider != nil {
		w.provider.Close()
	}
}

// handler is a page that returns its failure, before writing anything, for Routes to answer
// (page.Error), as the public pages and the API do.
type handler func(rw http.ResponseWriter, r *http.Request) error

// accountHandler is a page of the logged-in account (loggedIn).
type accountHandler func(rw http.ResponseWriter, r *http.Request, sess session, a hensachi.Account) error

// failure is a page's failure in its own words: code gives the status (hensachi.Kinds), heading
// and msg are what the page says, cause is what the log says (nil: nothing to log).
func failure(code, heading, msg string, cause error) *page.Failure {
	return &page.Failure{Heading: heading, Err: &hensachi.Error{Code: code, Message: msg, Cause: cause}}
}

// loginFailure is a failure of a step of logging in: the page offers to log in again.
func loginFailure(code, heading, msg string, cause error) *page.Failure {
	f := failure(code, heading, msg, cause)
	f.Again = true
	return f
}

// errLoginOff answers the login and account pages of a server without login.
var errLoginOff = failure(hensachi.EUnavailable, "ログインは設定されていません",
	"このサーバーではログインを使えません。API キーは運営者に発行してもらってください。", nil)

// Routes registers the pages through the server's instrumented handle; one wrapper answers the
// failures they return.
func (w *Pages) Routes(handle func(method, path string, h httprouter.Handle)) {
	route := func(method, path string, h handler) {
		handle(method, path, func(rw http.ResponseWriter, r *http.Request, _ httprouter.Params) {
			if err := h(rw, r); err != nil {
				page.Error(rw, r, page.Base{NoLogin: w.provider == nil, Credit: w.credit()}, err)
			}
		})
	}
	login := func(method, path string, h handler, limited bool) {
		route(method, path, func(rw http.ResponseWriter, r *http.Request) error {
			if w.provider == nil {
				return errLoginOff
			}
			if limited {
				if ok, wait := w.limiter.allow(clientAddr(r, w.cfg.ClientIPHeader), w.deps.Now()); !ok {
					return &page.Failure{Heading: "試行が多すぎます", Err: (&hensachi.Error{Code: hensachi.ETooManyRequests,
						Message: "このアドレスからのログインの試行が多すぎます。1 分ほど待ってからもう一度お試しください。"}).RetryIn(wait)}
				}
			}
			return h(rw, r)
		})
	}
	login(http.MethodGet, "/login", w.loginPage, true)
	login(http.MethodGet, "/login/start", w.loginStart, true)
	login(http.MethodGet, "/auth/callback", w.callback, true)
	login(http.MethodGet, "/account", w.loggedIn(w.account), false)
	login(http.MethodGet, "/account/key", w.loggedIn(w.issuedKey), false)
	login(http.MethodPost, "/account/rotate", w.loggedIn(w.rotate), false)
	login(http.MethodPost, "/account/origins", w.loggedIn(w.origins), false)
	login(http.MethodPost, "/logout", w.logout, false)
	route(http.MethodGet, "/demo/face", w.faceDemo)
	route(http.MethodPost, "/demo/face", w.faceDemo)
}

//go:embed templates/*.html
var files embed.FS

var templates = page.Parse(files, "templates/*.html")

func (w *Pages) loginPage(rw http.ResponseWriter, r *http.Request) error {
	if _, ok := w.jar.session(r, w.deps.Now()); ok {
		http.Redirect(rw, r, "/account", http.StatusSeeOther)
		return nil
	}
	page.Render(rw, r, templates, http.StatusOK, "login", loginPage{Base: w.base("ログイン", "ログインして、市区町村統計 API と顔分析 API の API キーを受け取る。", "/login"), Provider: w.name, Mails: w.cfg.Mailer != nil,
		TermsVersion: w.cfg.TermsVersion, TermsURL: w.cfg.TermsURL, Development: w.cfg.Development})
	return nil
}

// loginStart begins a login: fresh state, nonce and PKCE verifier in the login cookie, and a
// redirect to the identity provider.
func (w *Pages) loginStart(rw http.ResponseWriter, r *http.Request) error {
	flow := oidc.NewFlow()
	target, err := w.provider.AuthURL(r.Context(), flow)
	if err != nil {
		return loginFailure(hensachi.EUnavailable, "ログインできません",
			"ID プロバイダーに今は接続できません。1 分ほどしてからもう一度お試しください。", fmt.Errorf("start login: %w", err))
	}
	w.jar.setLogin(rw, flow, w.deps.Now())
	rw.Header().Set("Cache-Control", "no-store")
	http.Redirect(rw, r, target, http.StatusSeeOther)
	return nil
}

// callback finishes a login: the state must be the login cookie's, the code is exchanged with
// its verifier, and the ID token must pass every check. A first login creates the account, which
// accepts the current terms, and shows its key once; a later one records a newer terms version
// and goes to the account page.
func (w *Pages) callback(rw http.ResponseWriter, r *http.Request) error {
	const failed, again = "ログインに失敗しました", "ログインを完了できませんでした。ログインのページからやり直してください。"
	now := w.deps.Now()
	q := r.URL.Query()
	flow, ok := w.jar.takeLogin(rw, r, now)
	switch {
	case !ok:
		return loginFailure(hensachi.EInvalidParameter, "ログインの期限切れ",
			"このログインはこのブラウザーで始められたものではないか、10 分以上かかりました。もう一度ログインしてください。",
			errors.New("callback without a valid login cookie"))
	case !flow.CheckState(q.Get("state")):
		return loginFailure(hensachi.EInvalidParameter, failed, again, errors.New("callback state does not match the login cookie"))
	case q.Has("iss") && !w.provider.AcceptsIssuer(q.Get("iss")):
		return loginFailure(hensachi.EInvalidParameter, failed, again, fmt.Errorf("callback from another issuer: iss %q", q.Get("iss")))
	case q.Get("error") == "access_denied":
		return loginFailure(hensachi.EForbidden, "ログインの取り消し", "ID プロバイダーでログインが取り消されました。",
			errors.New("login denied at the provider"))
	case q.Get("error") != "" || q.Get("code") == "":
		// the provider's error_description is not shown: it is text from outside
		return loginFailure(hensachi.EBadGateway, failed, again, fmt.Errorf("provider answered an error: error %.64q", q.Get("error")))
	}
	ctx, cancel := context.WithTimeout(r.Context(), 20*time.Second)
	defer cancel()
	id, err := w.provider.Exchange(ctx, flow, q.Get("code"))
	switch {
	case errors.Is(err, oidc.ErrEmailNotVerified):
		return loginFailure(hensachi.EForbidden, "メールアドレスが未確認です",
			"ID プロバイダーがあなたのメールアドレスを確認していません。そちらで確認してから、もう一度ログインしてください。",
			fmt.Errorf("login refused: %w", err))
	case errors.Is(err, oidc.ErrDiscovery), errors.Is(err, oidc.ErrExchange):
		return loginFailure(hensachi.EBadGateway, failed, again, fmt.Errorf("login: identity provider: %w", err))
	case err != nil:
		return loginFailure(hensachi.EForbidden, failed, again, fmt.Errorf("login refused: ID token: %w", err))
	}

	account, key, err := w.deps.Accounts.LogIn(ctx, id.Email, w.cfg.TermsVersion)
	if hensachi.ErrorCode(err) == hensachi.EInvalidParameter { // an address that is not a bare one
		return loginFailure(hensachi.EForbidden, "メールアドレスを使えません",
			"ID プロバイダーから届いたメールアドレスが name@example.com のような普通の形ではないため、アカウントを作れません。",
			fmt.Errorf("login refused: e-mail address: %w", err))
	}
	if err != nil {
		return loginFailure(hensachi.EInternal, failed, again, fmt.Errorf("login: account: %w", err))
	}
	reqinfo.SetAccount(r.Context(), account.ID)
	w.jar.setSession(rw, account.ID, w.cfg.SessionTTL, now)
	if key != "" {
		slog.InfoContext(r.Context(), "account created at first login")
		w.issue(rw, r, account, key, true)
		return nil
	}
	slog.InfoContext(r.Context(), "login")
	http.Redirect(rw, r, "/account", http.StatusSeeOther)
	return nil
}

// issue mails a new key to the account's verified address and sends the browser to the key page,
// which shows it once (see cookieJar.setIssuedKey). The key itself is never logged.
func (w *Pages) issue(rw http.ResponseWriter, r *http.Request, a hensachi.Account, key string, first bool) {
	k := issuedKey{AccountID: a.ID, Key: key, First: first}
	if w.cfg.Mailer != nil {
		ctx, cancel := context.WithTimeout(r.Context(), 20*time.Second)
		err := w.cfg.Mailer.Send(ctx, keyMail(a.Email, key, strings.TrimSuffix(w.deps.PublicURL, "/"), first))
		cancel()
		if err != nil {
			slog.ErrorContext(r.Context(), "mail the API key", "err", err)
		}
		k.Mailed = err == nil
	}
	w.jar.setIssuedKey(rw, k, w.deps.Now())
	http.Redirect(rw, r, "/account/key", http.StatusSeeOther)
}

// issuedKey shows the key just issued, once; a reload, or a visit later, gets the account page.
func (w *Pages) issuedKey(rw http.ResponseWriter, r *http.Request, sess session, a hensachi.Account) error {
	k, ok := w.jar.takeIssuedKey(rw, r, sess, w.deps.Now())
	if !ok {
		http.Redirect(rw, r, "/account", http.StatusSeeOther)
		return nil
	}
	p := keyPage{Base: w.base("API キー", "", "/account"), First: k.First, Email: a.Email, Key: k.Key,
		PublicURL: strings.TrimSuffix(w.deps.PublicURL, "/"), Mailed: k.Mailed, MailOff: w.cfg.Mailer == nil}
	if !k.First {
		p.Title = "新しい API キー"
	}
	page.Render(rw, r, templates, http.StatusOK, "key", p)
	return nil
}

func keyMail(to, key, publicURL string, first bool) mail.Message {
	subject, opening := "Your hensachi API key", "Here is the API key of your hensachi account "+to+"."
	if !first {
		subject, opening = "Your new hensachi API key", "The key of your hensachi account "+to+" was rotated: the previous key no longer works. Here is the new one."
	}
	return mail.Message{To: to, Subject: subject, Text: opening + "\n\n    " + key + "\n\n" +
		"Send it in the X-API-Key header (or Authorization: Bearer), never in a URL, and keep it secret.\n" +
		"If it leaks, rotate it on your account page: " + publicURL + "/account\n"}
}

// loggedIn answers h for the logged-in account, which the request's log lines then carry; a
// visitor without a session, or whose account is gone, is sent to the login page.
func (w *Pages) loggedIn(h accountHandler) handler {
	return func(rw http.ResponseWriter, r *http.Request) error {
		sess, ok := w.jar.session(r, w.deps.Now())
		if !ok {
			http.Redirect(rw, r, "/login", http.StatusSeeOther)
			return nil
		}
		a, err := w.deps.Accounts.Store.Account(r.Context(), sess.AccountID)
		if hensachi.ErrorCode(err) == hensachi.ENotFound {
			w.jar.clear(rw, w.jar.sessionName)
			http.Redirect(rw, r, "/login", http.StatusSeeOther)
			return nil
		}
		if err != nil {
			return accountUnread(fmt.Errorf("account page: %w", err))
		}
		reqinfo.SetAccount(r.Context(), a.ID)
		return h(rw, r, sess, a)
	}
}

// accountUnread is the failure of an account page that could not read the account.
func accountUnread(cause error) error {
	return failure(hensachi.EInternal, "アカウントを表示できません", "今はアカウントを読み込めません。しばらくしてからお試しください。", cause)
}

var serviceLabels = map[hensachi.Service]string{hensachi.ServiceTown: "市区町村統計（/town/v1）", hensachi.ServiceFace: "顔分析（/face/v1）"}

func (w *Pages) account(rw http.ResponseWriter, r *http.Request, sess session, a hensachi.Account) error {
	return w.renderAccount(rw, r, sess, a, http.StatusOK, strings.Join(a.Origins, "\n"), "")
}

// renderAccount shows the account page with the origins text area holding originsText, and
// originsErr when that text was refused.
func (w *Pages) renderAccount(rw http.ResponseWriter, r *http.Request, sess session, a hensachi.Account, status int, originsText, originsErr string) error {
	keys, err := w.deps.Accounts.Store.Keys(r.Context(), a.ID)
	if err != nil {
		return accountUnread(fmt.Errorf("account page: keys: %w", err))
	}
	now := w.deps.Now()
	day := hensachi.Day(now)
	// The quota holds this process's counts, including those not yet written; the store holds
	// what every process has written, which matters when the other service runs elsewhere.
	stored := map[hensachi.Service]int64{}
	if usage, err := w.deps.Accounts.Store.Usage(r.Context(), day, a.ID); err == nil {
		for _, u := range usage {
			stored[u.Service] = u.Count
		}
	} else {
		slog.WarnContext(r.Context(), "account page: stored usage", "err", err)
	}
	p := accountPage{Base: w.base("アカウント", "", "/account"), Email: a.Email, Plan: a.Plan.Label(), TermsVersion: a.TermsVersion,
		Day: day, CSRF: w.jar.csrfToken(sess), Mails: w.cfg.Mailer != nil, Origins: originsText,
		OriginList: a.Origins, OriginsError: originsErr}
	if !a.TermsAcceptedAt.IsZero() {
		p.TermsAccepted = a.TermsAcceptedAt.In(hensachi.Tokyo).Format("2006-01-02 15:04（日本時間）")
	}
	for _, k := range keys {
		if !k.Revoked() {
			p.Hints = append(p.Hints, k.Hint)
		}
	}
	for _, svc := range []hensachi.Service{hensachi.ServiceTown, hensachi.ServiceFace} {
		p.Usage = append(p.Usage, usageRow{Service: string(svc), Label: serviceLabels[svc],
			Used: max(w.deps.Usage.Used(a.ID, svc), stored[svc]), Limit: w.deps.Limits.Daily(a.Plan, svc)})
	}
	page.Render(rw, r, templates, status, "account", p)
	return nil
}

// base is the layout's part of a page reached at path, which gives its canonical address.
func (w *Pages) base(title, description, path string) page.Base {
	return page.Base{Title: title, Description: description, Canonical: strings.TrimSuffix(w.deps.PublicURL, "/") + path,
		NoLogin: w.provider == nil}
}

// checkForm accepts a state-changing form only from this site with the session's CSRF token.
func (w *Pages) checkForm(rw http.ResponseWriter, r *http.Request, sess session) error {
	const refused = "フォームを受け付けられません"
	r.Body = http.MaxBytesReader(rw, r.Body, 4<<10)
	if err := w.cop.Check(r); err != nil {
		return failure(hensachi.EForbidden, refused, "このフォームはこのサイトから送られていません。アカウントのページを読み込み直して、もう一度お試しください。",
			fmt.Errorf("cross-origin form: %w", err))
	}
	if !w.jar.checkCSRF(sess, r.PostFormValue("csrf")) {
		return failure(hensachi.EForbidden, refused, "このフォームの有効期限が切れています。アカウントのページを読み込み直して、もう一度お試しください。",
			errors.New("form without a valid CSRF token"))
	}
	return nil
}

// rotate revokes the account's keys and issues a new one, shown once and mailed.
func (w *Pages) rotate(rw http.ResponseWriter, r *http.Request, sess session, a hensachi.Account) error {
	if err := w.checkForm(rw, r, sess); err != nil {
		return err
	}
	key, revoked, err := w.deps.Accounts.Rotate(r.Context(), a.ID)
	if err != nil {
		return failure(hensachi.EInternal, "キーを更新できません", "キーを更新できませんでした。しばらくしてからお試しください。", fmt.Errorf("rotate: %w", err))
	}
	// this process stops accepting the old keys at once; others within their key cache TTL
	w.deps.ForgetKeys(revoked)
	slog.InfoContext(r.Context(), "key rotated from the account page")
	w.issue(rw, r, a, key, false)
	return nil
}

// origins replaces the account's origin allow-list from the account page's text area. The
// server forgets the account's keys, so the list applies at once here and within the key cache's
// TTL on other processes.
func (w *Pages) origins(rw http.ResponseWriter, r *http.Request, sess session, a hensachi.Account) error {
	if err := w.checkForm(rw, r, sess); err != nil {
		return err
	}
	text := r.PostFormValue("origins")
	_, err := w.deps.Accounts.SetOrigins(r.Context(), a.ID, text)
	var bad *hensachi.Error
	if errors.As(err, &bad) && bad.Code == hensachi.EInvalidParameter {
		return w.renderAccount(rw, r, sess, a, hensachi.KindOf(bad.Code).Status, text, bad.Message)
	}
	if err != nil {
		return failure(hensachi.EInternal, "オリジンを保存できません", "オリジンの一覧を保存できませんでした。しばらくしてからお試しください。", fmt.Errorf("set origins: %w", err))
	}
	if keys, err := w.deps.Accounts.Store.Keys(r.Context(), a.ID); err == nil {
		w.deps.ForgetKeys(keys)
	}
	slog.InfoContext(r.Context(), "origins set from the account page")
	http.Redirect(rw, r, "/account#origins", http.StatusSeeOther)
	return nil
}

func (w *Pages) logout(rw http.ResponseWriter, r *http.Request) error {
	if sess, ok := w.jar.session(r, w.deps.Now()); ok {
		if err := w.checkForm(rw, r, sess); err != nil {
			return err
		}
	}
	w.jar.clear(rw, w.jar.sessionName)
	http.Redirect(rw, r, "/login", http.StatusSeeOther)
	return nil
}
