package reqinfo

import (
	"context"
	"testing"
	"time"
)

type otherKey struct{}

func TestContext(t *testing.T) {
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), otherKey{}, "parent's"))
	c := &Context{Context: parent, Info: Info{ID: "r1"}}
	SetAccount(c, 7)
	if ID(c) != "r1" || c.Info.AccountID != 7 || c.Value(otherKey{}) != "parent's" {
		t.Errorf("ID %q, account %d, parent's value %v", ID(c), c.Info.AccountID, c.Value(otherKey{}))
	}
	// a context derived from it is cancelled with the parent and still carries the info
	child, stop := context.WithTimeout(c, time.Hour)
	defer stop()
	cancel()
	<-child.Done()
	if ID(child) != "r1" {
		t.Errorf("derived context: ID %q", ID(child))
	}
	if ID(context.Background()) != "" {
		t.Error("an id outside a request")
	}
}
