#!/usr/bin/env bash
# Load benchmark of GET /town/v1/municipalities/{code} through the full path (key, usage, ETag)
# against two peers serving the same JSON bodies, on loopback, in one run: nginx (static files) and
# bare Go net/http from memory (scripts/barehttp), taking turns for a few rounds; then the same
# load against a server on PostgreSQL (a throwaway cluster, scripts/pg-cluster.sh) instead of the
# embedded store. Prints the throughputs, p99 latencies, the Go servers' CPU time per request, the
# ratios and the server's RSS. Then the indicators: wrk on one municipality's indicators (every
# indicator with its series, over the same municipalities) and a few downloads of the indicators'
# long table (GET /town/v1/export/series: CSV gzipped and not, Parquet), each reported as the
# server's CPU time per request and its ratio to the single-municipality call's, with the time the
# long table takes to build on its first request and the server's resident memory before and
# after (their difference is what the indicators' calls and caches hold).
#
#   DURATION=10s CONNECTIONS=64 THREADS=1   wrk's load per run
#   ROUNDS=3                                every peer runs this many times, taking turns
#   POSTGRES=false                          skip the PostgreSQL run (quicker, while exploring)
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-1}
PORT=${PORT:-18480}
NGINX_PORT=${NGINX_PORT:-18481}
PG_SERVER_PORT=${PG_SERVER_PORT:-18482}
BARE_PORT=${BARE_PORT:-18483}
POSTGRES=${POSTGRES:-true}
ROUNDS=${ROUNDS:-3}

missing=$(for tool in wrk nginx curl; do command -v "$tool" >/dev/null || echo "$tool"; done)
if [ -n "$missing" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  apt-get update -qq && apt-get install -y -qq wrk nginx-light curl >/dev/null
elif [ -n "$missing" ]; then
  echo "bench: missing" $missing "(apt-get install wrk nginx-light curl)" >&2
  exit 1
fi
make -s build runtime >/dev/null
# `make models` also re-checks the trained models by training them again where their datasets are,
# which takes long; the benchmark needs only the bundle
[ -f models/attributes.json ] || make -s models >/dev/null
[ -f data/dataset.arrow ] || make -s ingest >/dev/null

work=$(mktemp -d)
pgdir=""
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [ -z "$pgdir" ] || scripts/pg-cluster.sh stop "$pgdir"
  rm -rf "$work"
}
trap cleanup EXIT

# a pro account whose limit cannot run out during the benchmark
key=$(bin/hensachi account create -db "$work/bench.db" -email bench@example.com -plan pro | awk '/api key/{print $3}')
# both services, as deployed on one machine; the face models take their share of memory
bin/hensachi serve -db "$work/bench.db" -addr "127.0.0.1:$PORT" -access-log=false -uploads "" \
  -limits town.pro=1000000000,face.pro=1000000000 >"$work/server.log" 2>&1 &
server=$!; pids+=("$server")
for _ in $(seq 100); do curl -sf "127.0.0.1:$PORT/readyz" >/dev/null && break; sleep 0.1; done

# the same bodies, as nginx files; 200 municipalities spread over the country
codes=$(curl -sf -H "X-API-Key: $key" "127.0.0.1:$PORT/town/v1/municipalities" | grep -o '"code":"[0-9]\{5\}"' | cut -d'"' -f4 | awk 'NR % 8 == 1' | head -200)
mkdir -p "$work/www/town/v1/municipalities"
for c in $codes; do
  curl -sf -H "X-API-Key: $key" "127.0.0.1:$PORT/town/v1/municipalities/$c" >"$work/www/town/v1/municipalities/$c"
done
cat >"$work/nginx.conf" <<NGINX
worker_processes auto;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
daemon off;
events { worker_connections 1024; }
http {
  access_log off;
  default_type application/json;
  server { listen 127.0.0.1:$NGINX_PORT; root $work/www; etag on; }
}
NGINX
nginx -c "$work/nginx.conf" -p "$work" &
pids+=("$!")
go build -o "$work/barehttp" ./scripts/barehttp
"$work/barehttp" -addr "127.0.0.1:$BARE_PORT" -root "$work/www" &
bare=$!; pids+=("$bare")
sleep 0.5

lua_codes=$(printf '"%s",' $codes)
# request script for a key: $1 key, $2 file
lua() {
  cat >"$2" <<LUA
local codes = {${lua_codes%,}}
local i = 0
request = function()
  i = i % #codes + 1
  return wrk.format("GET", "/town/v1/municipalities/" .. codes[i], {["X-API-Key"] = "$1"})
end
LUA
}
lua "$key" "$work/req.lua"

# one wrk run: $1 the address, $2 the output file, $3 the pid whose CPU time to measure (into $2.cpu,
# in clock ticks), $4 the request script
run() {
  local before=0
  [ -z "${3:-}" ] || before=$(ticks "$3")
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -s "${4:-$work/req.lua}" "$1" >"$2"
  [ -z "${3:-}" ] || echo $(($(ticks "$3") - before)) >"$2.cpu"
}
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
rps() { awk '/^Requests\/sec/ {print $2}' "$1"; }
p99() { awk '$1 == "99%" {print $2}' "$1"; }
# over the rounds of a peer ($1: the files' prefix): requests per second over all of them, the
# median p99 in ms, the server's CPU time per request in µs, and each round's requests per second
total_rps() { cat "$1".[0-9]* | awk '/requests in/ {n += $1; t += $4 * ($4 ~ /m,$/ ? 60 : 1)} END {printf "%.0f", n / t}'; }
median_p99() {
  for f in "$1".[0-9]*; do [[ $f == *.cpu ]] || p99 "$f"; done |
    awk '{v = $1 + 0; if ($1 ~ /us$/) v /= 1000; else if ($1 ~ /[^m]s$/) v *= 1000; print v}' |
    sort -n | awk '{a[NR] = $1} END {m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.2fms", m}'
}
cpu_per_request() {
  [ -f "$1.1.cpu" ] || { echo "-"; return; }
  awk -v hz="$(getconf CLK_TCK)" -v t="$(cat "$1".[0-9]*.cpu | awk '{t += $1} END {print t}')" \
    -v n="$(cat "$1".[0-9]* | awk '/requests in/ {n += $1} END {print n}')" 'BEGIN {printf "%.1fµs", t * 1e6 / hz / n}'
}
rounds() { for r in $(seq "$ROUNDS"); do printf ' %s' "$(rps "$1.$r")"; done; }

# the peers take turns, in the opposite order every other round, so that a change in what else the
# machine does weighs on all of them alike
for r in $(seq "$ROUNDS"); do
  peers=(nginx bare hensachi)
  [ $((r % 2)) = 1 ] || peers=(hensachi bare nginx)
  for peer in "${peers[@]}"; do
    case $peer in
    nginx) run "http://127.0.0.1:$NGINX_PORT" "$work/nginx.$r" ;;
    bare) run "http://127.0.0.1:$BARE_PORT" "$work/bare.$r" "$bare" ;;
    hensachi) run "http://127.0.0.1:$PORT" "$work/hensachi.$r" "$server" ;;
    esac
  done
  grep -q "Non-2xx" "$work/hensachi.$r" && { echo "bench: the server answered errors:" >&2; cat "$work/hensachi.$r" >&2; exit 1; }
done
photo=${PHOTO:-../shared/datasets/scut-fbp5500/SCUT-FBP5500_v2/Images/AF1.jpg}
if [ -f "$photo" ]; then
  for _ in 1 2 3 4 5; do curl -sf -H "X-API-Key: $key" -F "file=@$photo" "127.0.0.1:$PORT/face/v1/predict" >/dev/null; done
fi
rss=$(awk '/VmHWM/ {print $2 " " $3}' "/proc/$server/status")

# the indicators: one municipality's, over the same codes, then the long table
rss_kb() { awk -v f="$2" '$1 == f":" {print $2}' "/proc/$1/status"; }
ind_rss_before=$(rss_kb "$server" VmRSS)
cat >"$work/ind.lua" <<LUA
local codes = {${lua_codes%,}}
local i = 0
request = function()
  i = i % #codes + 1
  return wrk.format("GET", "/town/v1/municipalities/" .. codes[i] .. "/indicators", {["X-API-Key"] = "$key"})
end
LUA
run "http://127.0.0.1:$PORT" "$work/indicators.1" "$server" "$work/ind.lua"
grep -q "Non-2xx" "$work/indicators.1" && { echo "bench: the indicators call answered errors:" >&2; cat "$work/indicators.1" >&2; exit 1; }
SERIES_CALLS=${SERIES_CALLS:-5}
# $1 the query, $2 Accept-Encoding: the first call's seconds (the build), then the server's CPU time
# per call over SERIES_CALLS more, in µs
series() {
  local url="127.0.0.1:$PORT/town/v1/export/series?$1" start before
  start=$(date +%s.%N)
  curl -sf -o /dev/null -H "X-API-Key: $key" -H "Accept-Encoding: $2" "$url"
  printf '%.1f ' "$(echo "$(date +%s.%N) - $start" | bc)"
  before=$(ticks "$server")
  for _ in $(seq "$SERIES_CALLS"); do curl -sf -o /dev/null -H "X-API-Key: $key" -H "Accept-Encoding: $2" "$url"; done
  awk -v hz="$(getconf CLK_TCK)" -v t="$(($(ticks "$server") - before))" -v n="$SERIES_CALLS" 'BEGIN {printf "%.0f", t * 1e6 / hz / n}'
}
series_gzip=$(series "format=csv" gzip)
series_csv=$(series "format=csv" identity)
series_parquet=$(series "format=parquet" identity)
ind_rss_after=$(rss_kb "$server" VmRSS)
ind_hwm=$(rss_kb "$server" VmHWM)

# The same server on PostgreSQL: keys are cached and quota is leased in blocks, so the database is
# off the request path; this measures what remains (lease syncs, the flush). The embedded-store
# server runs again after it, and the ratio is to the mean of its two runs, so that a drift in what
# else the machine does during the runs does not read as a difference between the stores.
pg=""
if [ "$POSTGRES" != true ]; then
  echo "bench: POSTGRES=$POSTGRES, so no PostgreSQL run" >&2
elif pgdir=$(mktemp -d /tmp/hensachi-bench-pg-XXXXXX) && pg_url=$(scripts/pg-cluster.sh start "$pgdir" 2>"$work/pg.log"); then
  pgkey=$(bin/hensachi account create -database-url "$pg_url" -email bench@example.com -plan pro | awk '/api key/{print $3}')
  bin/hensachi serve -database-url "$pg_url" -addr "127.0.0.1:$PG_SERVER_PORT" -access-log=false -uploads "" \
    -limits town.pro=1000000000,face.pro=1000000000 >"$work/server-pg.log" 2>&1 &
  pids+=("$!")
  for _ in $(seq 300); do curl -sf "127.0.0.1:$PG_SERVER_PORT/readyz" >/dev/null && break; sleep 0.1; done
  lua "$pgkey" "$work/req-pg.lua"
  run "http://127.0.0.1:$PG_SERVER_PORT" "$work/hensachi-pg.txt" "" "$work/req-pg.lua"
  grep -q "Non-2xx" "$work/hensachi-pg.txt" && { echo "bench: the PostgreSQL server answered errors:" >&2; cat "$work/hensachi-pg.txt" >&2; exit 1; }
  run "http://127.0.0.1:$PORT" "$work/hensachi-again.txt"
  pg=1
else
  echo "bench: no PostgreSQL cluster, so no PostgreSQL run (apt-get install postgresql):" >&2
  cat "$work/pg.log" >&2
  scripts/pg-cluster.sh stop "$pgdir" 2>/dev/null || rm -rf "$pgdir"
  pgdir=""
fi

echo "$ROUNDS rounds of $DURATION, $CONNECTIONS connections; requests/s over all rounds, median p99, the server's CPU time per request"
printf '%-22s %12s %10s %12s   %s\n' "" "requests/s" "p99" "CPU/request" "requests/s by round"
for peer in nginx bare hensachi; do
  name=$peer
  [ "$peer" != bare ] || name="bare Go net/http"
  printf '%-22s %12s %10s %12s  %s\n' "$name" "$(total_rps "$work/$peer")" "$(median_p99 "$work/$peer")" \
    "$(cpu_per_request "$work/$peer")" "$(rounds "$work/$peer")"
done
if [ -n "$pg" ]; then
  printf '%-22s %12s %10s\n' "hensachi on PostgreSQL" "$(rps "$work/hensachi-pg.txt")" "$(p99 "$work/hensachi-pg.txt")"
  printf '%-22s %12s %10s\n' "hensachi, again" "$(rps "$work/hensachi-again.txt")" "$(p99 "$work/hensachi-again.txt")"
fi
awk -v a="$(total_rps "$work/hensachi")" -v b="$(total_rps "$work/nginx")" 'BEGIN { printf "ratio hensachi/nginx: %.2f\n", a / b }'
by_round=$(for r in $(seq "$ROUNDS"); do awk -v a="$(rps "$work/hensachi.$r")" -v b="$(rps "$work/bare.$r")" 'BEGIN { printf " %.2f", a / b }'; done)
awk -v a="$(total_rps "$work/hensachi")" -v b="$(total_rps "$work/bare")" -v r="$by_round" \
  'BEGIN { printf "ratio hensachi/bare net/http: %.2f (by round:%s; goal ≥ 0.92; p99 goal ≤ 3 ms)\n", a / b, r }'
[ -z "$pg" ] || awk -v a="$(rps "$work/hensachi-pg.txt")" -v b="$(rps "$work/hensachi.$ROUNDS")" -v c="$(rps "$work/hensachi-again.txt")" \
  'BEGIN { printf "ratio hensachi on PostgreSQL / on the embedded store (mean of the runs before and after): %.2f\n", a / ((b + c) / 2) }'
echo "hensachi peak RSS (both services loaded, after face calls): $rss"
single_cpu=$(cpu_per_request "$work/hensachi" | tr -d 'µs')
echo "indicators, server CPU per request and its ratio to the single-municipality call's ($single_cpu µs):"
ind_cpu=$(cpu_per_request "$work/indicators" | tr -d 'µs')
awk -v c="$ind_cpu" -v s="$single_cpu" -v r="$(rps "$work/indicators.1")" -v p="$(p99 "$work/indicators.1")" \
  'BEGIN { printf "  one municipality, every indicator with its series: %.0f µs, x%.1f (goal under 200 µs); %s requests/s, p99 %s\n", c, c / s, r, p }'
for t in "long table, CSV gzipped:$series_gzip" "long table, CSV unzipped as sent:$series_csv" "long table, Parquet:$series_parquet"; do
  name=${t%%:*} v=${t#*:}
  awk -v n="$name" -v b="${v% *}" -v c="${v#* }" -v s="$single_cpu" \
    'BEGIN { printf "  %s: %d µs, x%.0f (built in %s s on its first call)\n", n, c, c / s, b }'
done
awk -v a="$ind_rss_before" -v b="$ind_rss_after" -v h="$ind_hwm" \
  'BEGIN { printf "hensachi RSS before the indicator calls %.0f MB, after %.0f MB (+%.0f MB; goal under +150 MB), peak %.0f MB\n", a / 1024, b / 1024, (b - a) / 1024, h / 1024 }'
