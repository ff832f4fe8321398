package uploads

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestSaveAndSweep(t *testing.T) {
	u := &Store{Dir: t.TempDir(), Retention: time.Hour}
	name, err := u.Save([]byte("first photo"), "jpeg")
	if err != nil {
		t.Fatal(err)
	}
	again, err := u.Save([]byte("first photo"), "jpeg")
	if err != nil || again != name {
		t.Fatalf("the same photo stored as %s and %s (%v)", name, again, err)
	}
	other, err := u.Save([]byte("second photo"), "png")
	if err != nil || other == name {
		t.Fatalf("another photo: %s, %v", other, err)
	}
	path := filepath.Join(u.Dir, name[:2], name+".jpeg")
	if b, err := os.ReadFile(path); err != nil || string(b) != "first photo" {
		t.Fatalf("stored file %s: %q, %v", path, b, err)
	}
	old := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	if n, err := u.Sweep(time.Now()); err != nil || n != 1 {
		t.Fatalf("sweep deleted %d, %v; want the one expired file", n, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("expired upload still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(u.Dir, other[:2], other+".png")); err != nil {
		t.Errorf("fresh upload swept: %v", err)
	}
}

// TestCheck: a store that can keep files passes and is left as it was; one whose directory cannot
// be made (a file stands in its way, which stops root too) fails, as its Save does.
func TestCheck(t *testing.T) {
	u := &Store{Dir: filepath.Join(t.TempDir(), "uploads"), Retention: time.Hour}
	if err := u.Check(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(u.Dir); len(left) != 0 {
		t.Errorf("the check left %v", left)
	}
	blocked := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocked, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	u.Dir = filepath.Join(blocked, "uploads")
	if err := u.Check(); err == nil {
		t.Error("a store under a file passed the check")
	}
	if _, err := u.Save([]byte("photo"), "jpeg"); err == nil {
		t.Error("a store under a file saved an upload")
	}
}
