#!/usr/bin/env bash
# Prints one SHA-256 over everything the model pass (scripts/model-pass.sh) depends on: the Go
# toolchain, the versions of the modules compiled in, the Go files and test data of every package of
# this module its test binaries are built from, the committed models, the image datasets and source
# models under ../shared, the assembled model bundle, ONNX Runtime's library and the photos without
# people. The model pass is skipped when this equals the stamp in .ci/model-pass.sha256, which `make
# model-pass` writes only after a full pass succeeded on these very inputs.
set -euo pipefail
cd "$(dirname "$0")/.."
go=${GO:-go}
mod=$($go list -m)
{
  $go version
  sha256sum scripts/model-pass.sh scripts/model-inputs.sh
  # the versions of the modules the test binaries compile (go.sum pins each version's content), not
  # go.mod as a whole, which a module the pass never builds would change
  $go list -deps -test -f '{{with .Module}}{{.Path}} {{.Version}}{{with .Replace}} => {{.Path}} {{.Version}}{{end}}{{end}}' ./training ./training/hardcase | sort -u
  # the Go and embedded files of each package the test binaries are built from and its test data
  # (which a test may read at run time); the test files of the two packages under test only, as no
  # other package's are compiled into them
  {
    $go list -deps -test -f '{{with .Module}}{{if eq .Path "'"$mod"'"}}{{range $.GoFiles}}{{$.Dir}}/{{.}}
{{end}}{{range $.CgoFiles}}{{$.Dir}}/{{.}}
{{end}}{{range $.EmbedFiles}}{{$.Dir}}/{{.}}
{{end}}{{$.Dir}}/testdata
{{end}}{{end}}' ./training ./training/hardcase
    $go list -f '{{range .TestGoFiles}}{{$.Dir}}/{{.}}
{{end}}{{range .XTestGoFiles}}{{$.Dir}}/{{.}}
{{end}}{{range .TestEmbedFiles}}{{$.Dir}}/{{.}}
{{end}}' ./training ./training/hardcase
  } | sed "s|^$PWD/||" | sort -u | while read -r path; do
    # if, not &&: under set -e a last path that is missing would end the whole group here, and
    # the trees below would go unhashed (they did until 2026-11-28)
    if [ -e "$path" ]; then
      find "$path" -type f -not -path '*/fuzz/*' -print0 | sort -z | xargs -0 -r sha256sum
    fi
  done
  for tree in face/models ../shared/datasets ../shared/models "${MODELS_DIR:-models}" build/onnxruntime build/noface; do
    if [ -d "$tree" ]; then
      find -L "$tree" -type f -print0 | sort -z | xargs -0 -r sha256sum
    fi
  done
} | sha256sum | cut -d' ' -f1
