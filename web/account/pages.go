package account

import "github.com/hensachi/hensachi/web/page"

type loginPage struct {
	page.Base
	Provider, TermsVersion, TermsURL string
	Development                      bool
	Mails                            bool // keys are mailed as well as shown
}

type keyPage struct {
	page.Base
	First                 bool
	Email, Key, PublicURL string
	Mailed, MailOff       bool
}

type usageRow struct {
	Service, Label string
	Used, Limit    int64
}

type accountPage struct {
	page.Base
	Email, Plan, TermsVersion, TermsAccepted, Day, CSRF string
	Hints                                               []string
	Usage                                               []usageRow
}
