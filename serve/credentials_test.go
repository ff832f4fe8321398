package serve_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hensachi/hensachi"
)

// rawRequest writes request as is on a new connection to addr and reads the answer, so header
// fields reach the server exactly as written (an http.Client would merge or reorder them).
func rawRequest(t *testing.T, addr, request string) (*http.Response, problem) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var p problem
	if resp.StatusCode >= 400 {
		if err := json.Unmarshal(body, &p); err != nil {
			t.Fatalf("status %d, body %q: %v", resp.StatusCode, body, err)
		}
	}
	return resp, p
}

// TestAmbiguousCredentials sends two keys in one request, over a raw socket so both fields arrive
// as sent: two different keys are a 400, whichever fields carry them; the same key twice is one key.
func TestAmbiguousCredentials(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	addr := strings.TrimPrefix(ts.http.URL, "http://")
	other, _ := hensachi.NewAPIKey()
	for _, c := range []struct {
		name   string
		fields string
		status int
		code   string
		param  string // the header field named
	}{
		{"two X-API-Key, valid first", "X-API-Key: " + ts.freeKey + "\r\nX-API-Key: " + other + "\r\n", 400, hensachi.EInvalidParameter, "X-API-Key"},
		{"two X-API-Key, valid second", "X-API-Key: " + other + "\r\nX-API-Key: " + ts.freeKey + "\r\n", 400, hensachi.EInvalidParameter, "X-API-Key"},
		{"two valid keys", "X-API-Key: " + ts.freeKey + "\r\nX-API-Key: " + ts.proKey + "\r\n", 400, hensachi.EInvalidParameter, "X-API-Key"},
		{"X-API-Key and Bearer", "X-API-Key: " + ts.freeKey + "\r\nAuthorization: Bearer " + ts.proKey + "\r\n", 400, hensachi.EInvalidParameter, "Authorization"},
		{"Bearer and X-API-Key", "Authorization: Bearer " + other + "\r\nX-API-Key: " + ts.freeKey + "\r\n", 400, hensachi.EInvalidParameter, "Authorization"},
		{"two Bearer", "Authorization: Bearer " + ts.freeKey + "\r\nAuthorization: Bearer " + ts.proKey + "\r\n", 400, hensachi.EInvalidParameter, "Authorization"},
		{"same key twice", "X-API-Key: " + ts.freeKey + "\r\nX-API-Key: " + ts.freeKey + "\r\n", 200, "", ""},
		{"same key as Bearer", "X-API-Key: " + ts.freeKey + "\r\nAuthorization: Bearer " + ts.freeKey + "\r\n", 200, "", ""},
		{"X-API-Key beside Basic", "X-API-Key: " + ts.freeKey + "\r\nAuthorization: Basic dXNlcjpwYXNz\r\n", 200, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, p := rawRequest(t, addr, "GET /town/v1/meta HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"+c.fields+"\r\n")
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d: %+v", resp.StatusCode, c.status, p)
			}
			if c.status != 200 && (p.Code != c.code || p.Param != c.param || p.RequestID == "" || p.Detail == "") {
				t.Errorf("problem %+v, want code %s, param %s", p, c.code, c.param)
			}
		})
	}
}
