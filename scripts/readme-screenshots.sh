#!/usr/bin/env bash
# `make screenshots`: the README's pictures of the site (web/site.TestBrowserReadmeScreenshots in
# Chromium on the real dataset), compressed into docs/images: pngquant's palette of at most 256
# colours, then optipng. Needs Chromium, ../shared's data, pngquant and optipng (Debian packages).
set -euo pipefail
cd "$(dirname "$0")/.."
out=docs/images
raw=$(mktemp -d)
trap 'rm -rf "$raw"' EXIT
SCREENSHOT_DIR=$raw HENSACHI_TEST_ALL=1 ${GO:-go} test -count=1 -run '^TestBrowserReadmeScreenshots$' ./web/site
mkdir -p "$out"
for f in "$raw"/*.png; do
  pngquant --force --quality 60-85 --speed 1 --strip --output "$out/$(basename "$f")" "$f"
  optipng -quiet -o2 "$out/$(basename "$f")"
done
ls -l "$out"
