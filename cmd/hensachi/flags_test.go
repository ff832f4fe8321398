package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// flagDefiners are the flag.FlagSet methods that define a flag, with the index of the name among
// their arguments and how many arguments they take.
var flagDefiners = map[string][2]int{
	"String": {0, 3}, "Bool": {0, 3}, "Int": {0, 3}, "Int64": {0, 3}, "Uint": {0, 3}, "Uint64": {0, 3},
	"Float64": {0, 3}, "Duration": {0, 3}, "Func": {0, 3}, "BoolFunc": {0, 3},
	"StringVar": {1, 4}, "BoolVar": {1, 4}, "IntVar": {1, 4}, "Int64Var": {1, 4}, "UintVar": {1, 4},
	"Uint64Var": {1, 4}, "Float64Var": {1, 4}, "DurationVar": {1, 4}, "Var": {1, 3}, "TextVar": {1, 4},
}

// envReaders are the calls that read an environment variable named by their first argument.
var envReaders = []string{"Getenv", "LookupEnv", "EnvOr", "flagOrEnv"}

var envName = regexp.MustCompile(`^[A-Z][A-Z0-9_]+$`)

// readByTheBinary returns the flags the binary defines and the environment variables it reads:
// the string literals given to the flag package's definers and to the calls that read the
// environment, in the Go files of every package of this module the binary links.
func readByTheBinary(t *testing.T) (flags, env []string) {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", `{{if not .Standard}}{{.Module}}|{{.Dir}}|{{join .GoFiles ","}}{{end}}`, ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	fset := token.NewFileSet()
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.Split(line, "|")
		if len(parts) != 3 || !strings.HasPrefix(parts[0], "github.com/hensachi/hensachi") {
			continue
		}
		for _, name := range strings.Split(parts[2], ",") {
			f, err := parser.ParseFile(fset, filepath.Join(parts[1], name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				var fn string
				switch f := call.Fun.(type) {
				case *ast.SelectorExpr:
					fn = f.Sel.Name
				case *ast.Ident:
					fn = f.Name
				}
				if d, ok := flagDefiners[fn]; ok && len(call.Args) == d[1] {
					if name, ok := stringLiteral(call.Args[d[0]]); ok {
						flags = append(flags, "-"+name)
					}
				}
				if slices.Contains(envReaders, fn) && len(call.Args) > 0 {
					if name, ok := stringLiteral(call.Args[0]); ok && envName.MatchString(name) {
						env = append(env, name)
					}
				}
				return true
			})
		}
	}
	slices.Sort(flags)
	slices.Sort(env)
	return slices.Compact(flags), slices.Compact(env)
}

func stringLiteral(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

var tableCode = regexp.MustCompile("`([^`]+)`")

// operatingTable reads the flags and variables of the operating guide's one table: its first
// column holds the flags, its second the environment variables, each in backquotes.
func operatingTable(t *testing.T) (flags, env []string) {
	t.Helper()
	src, err := os.ReadFile("../../docs/operating.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(src), "\n| flag | env | default |")
	if !ok {
		t.Fatal("docs/operating.md has no table of flags and environment variables")
	}
	table, _, _ = strings.Cut(table, "\n\n")
	for _, row := range strings.Split(table, "\n")[2:] {
		cells := strings.Split(row, "|")
		if len(cells) < 4 {
			t.Fatalf("docs/operating.md: a row of the flags' table: %q", row)
		}
		for _, m := range tableCode.FindAllStringSubmatch(cells[1], -1) {
			flags = append(flags, m[1])
		}
		for _, m := range tableCode.FindAllStringSubmatch(cells[2], -1) {
			env = append(env, m[1])
		}
	}
	return flags, env
}

// TestOperatingGuideListsEveryFlag fails when the binary defines a flag or reads an environment
// variable that the operating guide's table lacks, or when the table lists one it no longer has.
func TestOperatingGuideListsEveryFlag(t *testing.T) {
	codeFlags, codeEnv := readByTheBinary(t)
	if len(codeFlags) < 30 || !slices.Contains(codeFlags, "-addr") || !slices.Contains(codeEnv, "HENSACHI_DATABASE_URL") {
		t.Fatalf("read %d flags and %d variables from the code; the scan lost some: %v %v", len(codeFlags), len(codeEnv), codeFlags, codeEnv)
	}
	docFlags, docEnv := operatingTable(t)
	for _, c := range []struct {
		what       string
		code, docs []string
	}{{"flag", codeFlags, docFlags}, {"environment variable", codeEnv, docEnv}} {
		for _, name := range c.code {
			if !slices.Contains(c.docs, name) {
				t.Errorf("the %s %s is not in docs/operating.md's table", c.what, name)
			}
		}
		for _, name := range c.docs {
			if !slices.Contains(c.code, name) {
				t.Errorf("docs/operating.md's table lists the %s %s, which the binary does not read", c.what, name)
			}
		}
	}
}
