package apiclient

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestUpToDate generates the client again from serve/openapi.json and compares it with the
// committed one, so that the document and the client cannot drift apart.
func TestUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs oapi-codegen")
	}
	out := filepath.Join(t.TempDir(), "client.gen.go")
	cmd := exec.Command("go", "tool", "oapi-codegen", "-config", "config.yaml", "-o", out, "../../../serve/openapi.json")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("oapi-codegen: %v\n%s", err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("client.gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, committed) {
		t.Error("client.gen.go is not what serve/openapi.json generates; run go generate ./internal/testrig/apiclient")
	}
}
