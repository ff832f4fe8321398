package hensachi

import (
	"context"
	"net/mail"
	"strconv"
	"time"
)

// Accounts carries out what can be done with an account, for the login pages and the operator
// tool alike, so that both follow the same rules.
type Accounts struct {
	Store Store
	Now   func() time.Time
}

// LogIn is a login with an address the identity provider has verified. The first one creates the
// account on the free plan and returns its key, to be shown once; the account accepts the terms
// version as it is created. A later login records the terms version when it is newer and returns
// no key: logging in is accepting the terms.
func (a Accounts) LogIn(ctx context.Context, email, termsVersion string) (acct Account, key string, err error) {
	now := a.Now()
	acct, err = a.Store.AccountByEmail(ctx, email)
	if ErrorCode(err) == ENotFound {
		if err := CheckEmail(email); err != nil {
			return Account{}, "", err
		}
		key, stored := NewAPIKey()
		acct, _, err = a.Store.CreateAccount(ctx, Account{Email: email, Plan: PlanFree,
			TermsVersion: termsVersion, TermsAcceptedAt: now}, stored)
		if err == nil {
			return acct, key, nil
		}
		if ErrorCode(err) == EConflict { // a parallel first login won the race
			acct, err = a.Store.AccountByEmail(ctx, email)
		}
	}
	if err != nil {
		return Account{}, "", err
	}
	if acct.TermsVersion != termsVersion {
		if err := a.Store.AcceptTerms(ctx, acct.ID, termsVersion, now); err != nil {
			return Account{}, "", err
		}
		acct.TermsVersion, acct.TermsAcceptedAt = termsVersion, now
	}
	return acct, "", nil
}

// Create makes an account for the operator and returns its first key, to be shown once. Such an
// account has accepted no terms until its owner logs in.
func (a Accounts) Create(ctx context.Context, email string, plan Plan) (Account, string, error) {
	if err := CheckEmail(email); err != nil {
		return Account{}, "", err
	}
	if !plan.Valid() {
		return Account{}, "", ParamError("plan", "plan %q: want free or pro", plan)
	}
	key, stored := NewAPIKey()
	acct, _, err := a.Store.CreateAccount(ctx, Account{Email: email, Plan: plan}, stored)
	return acct, key, err
}

// maxEmailLength is the longest address SMTP carries (RFC 5321 §4.5.3.1.3, less the brackets).
const maxEmailLength = 254

// CheckEmail accepts only a bare address, exactly as net/mail parses it: no display name, no
// angle brackets, nothing around it (such as markup), no quoting or comments that parsing would
// change. An account's address is shown on pages and mailed to, so it is checked where accounts
// are created, for the login and the operator tool alike; an invalid one is an invalid_parameter
// error on "email".
func CheckEmail(email string) error {
	if len(email) > maxEmailLength {
		return ParamError("email", "the e-mail address is longer than %d bytes", maxEmailLength)
	}
	a, err := mail.ParseAddress(email)
	if err != nil || a.Name != "" || a.Address != email {
		return ParamError("email", "%q is not a bare e-mail address such as name@example.com "+
			"(no display name, angle brackets, comments or other text)", email)
	}
	return nil
}

// Rotate revokes the account's keys and issues a new one, to be shown once. It returns the keys
// it revoked, so that a process caching key lookups can forget them at once.
func (a Accounts) Rotate(ctx context.Context, accountID int64) (key string, revoked []APIKey, err error) {
	old, err := a.Store.Keys(ctx, accountID)
	if err != nil {
		return "", nil, err
	}
	key, stored := NewAPIKey()
	if _, err := a.Store.RotateKey(ctx, accountID, stored); err != nil {
		return "", nil, err
	}
	for _, k := range old {
		if !k.Revoked() {
			revoked = append(revoked, k)
		}
	}
	return key, revoked, nil
}

// Find looks an account up by its id or its e-mail address.
func (a Accounts) Find(ctx context.Context, idOrEmail string) (Account, error) {
	if id, err := strconv.ParseInt(idOrEmail, 10, 64); err == nil {
		return a.Store.Account(ctx, id)
	}
	return a.Store.AccountByEmail(ctx, idOrEmail)
}
