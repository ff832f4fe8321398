package facecall

import (
	"sync"
	"time"

	"github.com/hensachi/hensachi"
)

// admission decides whether the face service takes an upload before it does any work on it.
// A call first needs a slot: there are as many as the analyzer has workers and queue places, and
// an account may hold only a few at once, so one client cannot take them all. Without a slot the
// answer is an immediate EOverloaded (a 503), before the upload is read. Once the image header is
// read, decoding needs its bytes from a memory budget, held until the analysis ends; a photo that
// does not fit now is an EOverloaded too. So an upload flood costs at most slots × the upload cap in bodies and the
// budget in pixels, however many clients send.
type admission struct {
	slots      int
	perAccount int
	budget     int64

	mu       sync.Mutex
	used     int
	accounts map[int64]int
	bytes    int64
}

func newAdmission(slots, perAccount int, budget int64) *admission {
	return &admission{slots: slots, perAccount: perAccount, budget: budget, accounts: map[int64]int{}}
}

// ticket is one admitted call; leave must be called when it ends.
type ticket struct {
	a       *admission
	account int64
	bytes   int64
}

var errBusy = hensachi.Errorf(hensachi.EOverloaded, "the face service is busy; retry shortly").RetryIn(time.Second)

// enter takes a slot for the account, or refuses at once.
func (a *admission) enter(account int64) (*ticket, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.accounts[account] >= a.perAccount {
		return nil, hensachi.Errorf(hensachi.EOverloaded, "this account already has %d face calls in progress; send the next when one has finished", a.perAccount).RetryIn(time.Second)
	}
	if a.used >= a.slots {
		return nil, errBusy
	}
	a.used++
	a.accounts[account]++
	return &ticket{a: a, account: account}, nil
}

// reserveMemory holds n bytes of the decoding budget for the rest of the call, or refuses.
func (t *ticket) reserveMemory(n int64) error {
	a := t.a
	a.mu.Lock()
	defer a.mu.Unlock()
	if n > a.budget {
		return hensachi.Errorf(hensachi.EInvalidImage, "decoding this image would take %d MB, more than the service allows (%d MB); send a smaller image or an 8-bit one", n>>20, a.budget>>20)
	}
	if a.bytes+n > a.budget {
		return errBusy
	}
	a.bytes += n
	t.bytes += n
	return nil
}

// leave gives back the slot and the memory.
func (t *ticket) leave() {
	a := t.a
	a.mu.Lock()
	defer a.mu.Unlock()
	a.used--
	a.bytes -= t.bytes
	if a.accounts[t.account]--; a.accounts[t.account] == 0 {
		delete(a.accounts, t.account)
	}
}
