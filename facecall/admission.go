package facecall

import (
	"sync"
	"time"

	"github.com/hensachi/hensachi"
)

// admission decides whether the face service takes a call, each step before the work it guards.
//
// Before the upload is read, the account must be under its share (a few calls in progress, reading
// or analysed), and the upload's first bytes must fit in the bodies' budget; as it arrives, its
// buffer takes more of the budget before it grows. So the budget holds the bytes clients have
// actually sent: one that sends slowly holds its account's share and little memory, never what
// other accounts need. Only once the upload has arrived does the call take an analyzer slot (as
// many as the analyzer has workers and queue places), so a slow upload holds none. Once the image
// header is read, decoding needs its bytes from the decoding budget, held until the analysis ends.
// Each refusal is an immediate EOverloaded (a 503). So an upload flood costs at most the bodies'
// budget in uploads and the decoding budget in pixels, however many clients send.
type admission struct {
	slots      int
	perAccount int
	bodies     int64
	memory     int64

	mu          sync.Mutex
	used        int
	accounts    map[int64]int
	bodyBytes   int64
	decodeBytes int64
}

func newAdmission(slots, perAccount int, bodies, memory int64) *admission {
	return &admission{slots: slots, perAccount: perAccount, bodies: bodies, memory: memory, accounts: map[int64]int{}}
}

// ticket is one admitted call; leave must be called when it ends.
type ticket struct {
	a           *admission
	account     int64
	slot        bool
	bodyBytes   int64
	decodeBytes int64
}

var errBusy = hensachi.Errorf(hensachi.EOverloaded, "the face service is busy; retry shortly").RetryIn(time.Second)

// enter admits a call of the account whose upload takes body bytes to begin with, or refuses at once.
func (a *admission) enter(account, body int64) (*ticket, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.accounts[account] >= a.perAccount {
		return nil, hensachi.Errorf(hensachi.EOverloaded, "this account already has %d face calls in progress; send the next when one has finished", a.perAccount).RetryIn(time.Second)
	}
	if a.bodyBytes+body > a.bodies {
		return nil, errBusy
	}
	a.bodyBytes += body
	a.accounts[account]++
	return &ticket{a: a, account: account, bodyBytes: body}, nil
}

// holdBody takes n more bytes of the bodies' budget for the call's upload, or refuses.
func (t *ticket) holdBody(n int64) error {
	a := t.a
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.bodyBytes+n > a.bodies {
		return errBusy
	}
	a.bodyBytes += n
	t.bodyBytes += n
	return nil
}

// takeSlot holds an analyzer slot for the rest of the call, or refuses.
func (t *ticket) takeSlot() error {
	a := t.a
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.used >= a.slots {
		return errBusy
	}
	a.used++
	t.slot = true
	return nil
}

// reserveMemory holds n bytes of the decoding budget for the rest of the call, or refuses.
func (t *ticket) reserveMemory(n int64) error {
	a := t.a
	a.mu.Lock()
	defer a.mu.Unlock()
	if n > a.memory {
		return hensachi.Errorf(hensachi.EInvalidImage, "decoding this image would take %d MB, more than the service allows (%d MB); send a smaller image or an 8-bit one", n>>20, a.memory>>20)
	}
	if a.decodeBytes+n > a.memory {
		return errBusy
	}
	a.decodeBytes += n
	t.decodeBytes += n
	return nil
}

// leave gives back the account's share, the slot and the bytes.
func (t *ticket) leave() {
	a := t.a
	a.mu.Lock()
	defer a.mu.Unlock()
	if t.slot {
		a.used--
	}
	a.bodyBytes -= t.bodyBytes
	a.decodeBytes -= t.decodeBytes
	if a.accounts[t.account]--; a.accounts[t.account] == 0 {
		delete(a.accounts, t.account)
	}
}
