#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on loopback, for tests and the benchmark; never for real data
# (fsync is off).
#
#   scripts/pg-cluster.sh start DIR [PORT]   initdb into DIR, start on 127.0.0.1:PORT (default: a free
#                                           port from 55432 up), create database hensachi, print its URL
#   scripts/pg-cluster.sh stop DIR           stop the cluster and delete DIR
#
# It uses Debian's packages (apt-get install postgresql; /usr/lib/postgresql/*/bin). PostgreSQL
# refuses to run as root, so as root the server runs as the postgres user.
set -euo pipefail

bindir=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
if [ -z "$bindir" ] || [ ! -x "$bindir/pg_ctl" ]; then
  echo "pg-cluster: PostgreSQL's server binaries are missing (apt-get install postgresql)" >&2
  exit 1
fi
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

cmd=${1:-}
dir=${2:-}
[ -n "$dir" ] || { echo "usage: $0 start|stop DIR [PORT]" >&2; exit 2; }
case $cmd in
start)
  port=${3:-}
  if [ -z "$port" ]; then
    port=55432
    while port_busy "$port"; do port=$((port + 1)); done
  fi
  mkdir -p "$dir"
  [ "$(id -u)" = 0 ] && chown postgres: "$dir"
  as_pg "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust --no-sync -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; exit 1; }
  # the socket goes into DIR, so the cluster needs nothing outside it
  as_pg "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
    start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
  as_pg "$bindir/createdb" -h 127.0.0.1 -p "$port" -U postgres hensachi
  echo "postgres://postgres@127.0.0.1:$port/hensachi?sslmode=disable"
  ;;
stop)
  if [ -f "$dir/data/postmaster.pid" ]; then
    as_pg "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
  fi
  rm -rf "$dir"
  ;;
*)
  echo "usage: $0 start|stop DIR [PORT]" >&2
  exit 2
  ;;
esac
