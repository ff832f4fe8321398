#!/usr/bin/env bash
# Issue 32's server-memory figure: starts `hensachi serve -services town` on DATASET with a fresh
# embedded store, waits for /readyz, reads VmRSS, asks the pages that load the statistics (and the
# indicator catalogue where there is one), and reads VmRSS again.
#
# SETTLE=N reads it once more N seconds later, to tell held memory from garbage not yet returned.
#
#   scripts/serve-rss.sh HENSACHI_BINARY DATASET [PORT]
set -euo pipefail
bin=$1 dataset=$2 port=${3:-18391}
dir=$(mktemp -d)
"$bin" serve -services town -dataset "$dataset" -db "$dir/store.db" -addr "127.0.0.1:$port" \
	-access-log=false >"$dir/log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
until curl -fs "http://127.0.0.1:$port/readyz" >/dev/null; do
	kill -0 "$pid" || { cat "$dir/log"; exit 1; }
	sleep 0.2
done
rss() { awk '/^VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$pid/status"; }
ready=$(rss)
for path in /town/municipalities/13101 /town/rankings/young /town/municipalities/01100 \
	/town/municipalities/47201; do
	curl -s -o /dev/null -w "%{http_code} $path\n" "http://127.0.0.1:$port$path" >&2
done
pages=$(rss)
sleep "${SETTLE:-0}"
echo "ready_MiB=$ready after_pages_MiB=$pages after_${SETTLE:-0}s_MiB=$(rss)"
