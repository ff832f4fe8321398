#!/usr/bin/env bash
# Turns `go build -v`'s one line per compiled package into a progress line every few seconds, so a
# first build (a minute of compiling) shows it is moving; any other line (an error, a download) is
# passed through as it comes.
#
#   go build -v ./cmd/hensachi 2>&1 | scripts/progress.sh build
set -uo pipefail
label=$1
n=0
last=$SECONDS
while IFS= read -r line; do
  case $line in
    *' '* | '#'*) printf '%s\n' "$line" ;; # not a package path: an error or a download
    *) n=$((n + 1)) ;;
  esac
  if ((SECONDS - last >= 5)); then
    echo "$label: $n packages compiled…"
    last=$SECONDS
  fi
done
if ((n > 0)); then
  echo "$label: $n packages compiled"
fi
