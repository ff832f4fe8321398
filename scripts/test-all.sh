#!/usr/bin/env bash
# `make test-all`, CI's command: every test, the slow tier included (HENSACHI_TEST_ALL=1).
#
# Two passes run side by side. The model pass (package training: the full evaluations of the
# trained models and their reproduction, sharing one feature extraction over 28,800 images, about
# 13 minutes of both cores; its other packages' tests are in the race pass)
# runs without the race detector, which would only make its figures slower, and under `nice`, so
# that it takes only the CPU the race pass leaves idle: that pass waits on browsers, Lighthouse,
# PostgreSQL restarts and timeouts for a good part of its time, and its timing checks and
# Lighthouse's performance score must not suffer from the model pass.
set -uo pipefail
cd "$(dirname "$0")/.."
export HENSACHI_TEST_ALL=1
go=${GO:-go}
start=$SECONDS

(
  nice -n 19 $go test -count=1 -timeout 40m ./training 2>&1 | sed -u 's/^/[models] /'
) &
models=$!

echo "test-all: the model pass started in the background; vet and the race pass now"
rc=0
$go vet ./... || rc=1
$go test -race -count=1 -timeout 30m ./... || rc=1
echo "test-all: the race pass ended after $((SECONDS - start)) s; waiting for the model pass"
wait "$models" || rc=1
echo "test-all: $([ $rc = 0 ] && echo passed || echo FAILED) after $((SECONDS - start)) s"
exit $rc
