// Command barehttp is the bare Go peer of the load benchmark (scripts/bench-town.sh): net/http
// serving the same response bodies from memory, with no key, quota, router or metrics, so that the
// benchmark can say what the full path costs beyond Go's HTTP server itself.
package main

import (
	"flag"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18483", "listen address")
	root := flag.String("root", "", "directory whose files are served by their path under it")
	flag.Parse()
	bodies := map[string][]byte{}
	err := filepath.WalkDir(*root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(*root, path)
		bodies["/"+filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	contentType := []string{"application/json"}
	log.Fatal(http.ListenAndServe(*addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := bodies[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h["Content-Type"] = contentType
		h["Content-Length"] = []string{strconv.Itoa(len(b))}
		w.Write(b)
	})))
}
