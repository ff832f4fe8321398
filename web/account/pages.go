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
	Mails                                               bool     // a new key is mailed as well as shown
	Origins                                             string   // the allow-list, one a line, for the text area
	OriginList                                          []string // the same, for the summary
	OriginsError                                        string   // why the list sent was refused
}
