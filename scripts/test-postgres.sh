#!/usr/bin/env bash
# Runs tests against a throwaway PostgreSQL cluster on loopback, as CI does: starts it
# (scripts/pg-cluster.sh), exports HENSACHI_TEST_DATABASE_URL, runs the command, stops it.
#
#   scripts/test-postgres.sh              the PostgreSQL store's tests and the replica tests
#   scripts/test-postgres.sh make test-all    any command (the database's tests are in the slow tier)
#
# Needs Debian's postgresql package (apt-get install postgresql). The test that restarts the
# database under load starts a private cluster of its own with the same programs.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(mktemp -d /tmp/hensachi-pg-XXXXXX)
trap 'scripts/pg-cluster.sh stop "$dir"' EXIT
HENSACHI_TEST_DATABASE_URL=$(scripts/pg-cluster.sh start "$dir")
export HENSACHI_TEST_DATABASE_URL
echo "test-postgres: throwaway cluster at $HENSACHI_TEST_DATABASE_URL" >&2
if [ $# -eq 0 ]; then
  set -- env HENSACHI_TEST_ALL=1 go test -race -count=1 ./postgres/... ./internal/... ./cmd/hensachi/...
fi
"$@"
