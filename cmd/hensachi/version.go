package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/hensachi/hensachi/cmd/internal/cli"
	"github.com/hensachi/hensachi/dataset"
	"github.com/hensachi/hensachi/face/models"
)

func runVersion(_ context.Context, args []string) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	ds := fs.String("dataset", cli.EnvOr("HENSACHI_DATASET", "data/dataset.arrow"), "dataset file (env HENSACHI_DATASET)")
	dir := fs.String("models", cli.EnvOr("HENSACHI_MODELS", "models"), "model bundle directory (env HENSACHI_MODELS)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	info, _ := debug.ReadBuildInfo()
	writeVersion(os.Stdout, info, *ds, *dir)
	return nil
}

// writeVersion prints the build, the dataset's version as the server logs it and the models'
// versions: the bundle's files by the manifest's SHA-256 (short) and whether the directory holds
// them, the trained models by name and SHA-256. What is absent is said so.
func writeVersion(w io.Writer, info *debug.BuildInfo, datasetPath, modelsDir string) {
	fmt.Fprintf(w, "hensachi %s\n", buildVersion(info))
	if d, err := dataset.Open(datasetPath); err != nil {
		fmt.Fprintf(w, "dataset  %s: %s\n", datasetPath, absentOr(err))
	} else {
		fmt.Fprintf(w, "dataset  %s: version %s, %d municipalities\n", datasetPath, d.Version, d.Len())
		d.Close()
	}
	fmt.Fprintf(w, "models   %s\n", modelsDir)
	if m, err := models.ParseManifest(); err != nil {
		fmt.Fprintf(w, "  bundle.json: %v\n", err)
	} else {
		for _, x := range m.Models {
			fmt.Fprintf(w, "  %-10s %-36s %s  %s\n", x.Role, x.File, short(x.SHA256), bundleFileState(filepath.Join(modelsDir, x.File), &x.Artifact))
		}
	}
	for _, name := range []string{cli.AttractivenessFile, cli.AttributesFile, cli.AgeRangesFile} {
		b, err := os.ReadFile(filepath.Join(modelsDir, name))
		if err != nil {
			fmt.Fprintf(w, "  %-10s %-36s %s\n", "trained", name, absentOr(err))
			continue
		}
		var head struct {
			Name string `json:"name"`
		}
		json.Unmarshal(b, &head) // a file that is not a model shows with its hash alone
		sum := sha256.Sum256(b)
		fmt.Fprintf(w, "  %-10s %-36s %s  %s\n", "trained", name, short(hex.EncodeToString(sum[:])), head.Name)
	}
}

// buildVersion is the main module's version, else the VCS revision, its time and whether the tree
// was modified, as the Go toolchain stamped them.
func buildVersion(info *debug.BuildInfo) string {
	if info == nil {
		return "(no build information)"
	}
	v := info.Main.Version
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if v == "" || v == "(devel)" {
		v = "(devel)"
		if r := settings["vcs.revision"]; r != "" {
			v = short(r)
			if t := settings["vcs.time"]; t != "" {
				v += " " + t
			}
			if settings["vcs.modified"] == "true" {
				v += " (modified)"
			}
		}
	}
	return v + ", " + info.GoVersion
}

// bundleFileState says whether the file at path is present and the one the manifest describes.
func bundleFileState(path string, a *models.Artifact) string {
	switch err := models.VerifyFile(path, a); {
	case err == nil:
		return "present"
	case errors.Is(err, os.ErrNotExist):
		return "absent"
	default:
		return "differs from the manifest"
	}
}

// absentOr says "absent" for a missing file, else the error.
func absentOr(err error) string {
	if errors.Is(err, os.ErrNotExist) {
		return "absent"
	}
	return err.Error()
}

func short(sum string) string { return sum[:min(len(sum), 12)] }
