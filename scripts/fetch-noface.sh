#!/usr/bin/env bash
# Puts the photos without people listed in face/testdata/noface.txt into build/noface/ (or
# $NOFACE_DIR): each is taken from a Debian package (apt-get download, no install) and checked
# against its SHA-256. The false-face test reads them; none are committed.
set -euo pipefail
cd "$(dirname "$0")/.."

list=face/testdata/noface.txt
out=${NOFACE_DIR:-build/noface}
mkdir -p "$out"

ok() { [ -f "$out/$1" ] && [ "$(sha256sum "$out/$1" | cut -d' ' -f1)" = "$2" ]; }
missing=0
while read -r pkg path sum; do
  case $pkg in ''|'#'*) continue;; esac
  ok "$(basename "$path")" "$sum" || missing=1
done < "$list"
if [ $missing = 0 ]; then
  echo "noface: $out is up to date"
  exit 0
fi

if ! command -v apt-get >/dev/null; then
  echo "noface: apt-get is not available; the false-face test will be skipped (and fails under CI=true)" >&2
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pkgs=$(grep -v '^#' "$list" | cut -d' ' -f1 | sort -u)
echo "noface: apt-get download" $pkgs
if ! (cd "$tmp" && apt-get download $pkgs >/dev/null 2>&1); then
  apt-get update >/dev/null
  (cd "$tmp" && apt-get download $pkgs >/dev/null)
fi
for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$tmp/root"; done
while read -r pkg path sum; do
  case $pkg in ''|'#'*) continue;; esac
  name=$(basename "$path")
  cp "$tmp/root/$path" "$out/$name"
  if ! ok "$name" "$sum"; then
    echo "noface: SHA-256 MISMATCH for $path of $pkg (want $sum)" >&2
    exit 1
  fi
done < "$list"
echo "noface: $(grep -vc '^#' "$list") files in $out"
