#!/usr/bin/env bash
# `make test-all`, CI's command: every test, the slow tier included (HENSACHI_TEST_ALL=1).
#
# Two passes run side by side. The model pass (scripts/model-pass.sh: training and its hard cases, about 13
# minutes of both cores; its other packages' tests are in the race pass) runs without the race
# detector, which would only make its figures slower, and under `nice`, so that it takes only the CPU
# the race pass leaves idle: that pass waits on browsers, Lighthouse, PostgreSQL restarts and
# timeouts for a good part of its time, and its timing checks and Lighthouse's performance score must
# not suffer from the model pass. For the same reason the site's Lighthouse audits run alone after the
# other tests. When HENSACHI_MODEL_PASS_RC names a file, the model pass was started
# earlier (by .ci/run) and this script only waits for its exit status there.
set -uo pipefail
cd "$(dirname "$0")/.."
export HENSACHI_TEST_ALL=1
go=${GO:-go}
start=$SECONDS

rcfile=${HENSACHI_MODEL_PASS_RC:-}
if [ -n "$rcfile" ]; then
  echo "test-all: the model pass is running already; the race pass now"
else
  rcfile=$(mktemp -u /tmp/hensachi-model-pass-XXXXXX)
  scripts/model-pass.sh "$rcfile" &
  echo "test-all: the model pass started in the background; the race pass now"
fi

rc=0
# Every vet check runs within the race pass (-vet=all), on the packages it compiles anyway: a
# separate go vet would compile every dependency once more without the race detector. The longest
# test binaries go first, so that they do not start last and run on alone; the site's Lighthouse
# audits last and alone: they time pages on this CPU, which the other tests would share with them.
site=github.com/hensachi/hensachi/web/site
longest=(github.com/hensachi/hensachi/serve "$site")
$go test -race -vet=all -count=1 -timeout 45m -skip '^TestLighthouse$' "${longest[@]}" $($go list ./... | grep -vxF "${longest[@]/#/-e}") || rc=1
$go test -race -vet=off -count=1 -timeout 30m -run '^TestLighthouse$' "$site" || rc=1
echo "test-all: the race pass ended after $((SECONDS - start)) s; waiting for the model pass"
while [ ! -s "$rcfile" ]; do sleep 2; done
[ "$(cat "$rcfile")" = 0 ] || rc=1
rm -f "$rcfile"
echo "test-all: $([ $rc = 0 ] && echo passed || echo FAILED) after $((SECONDS - start)) s"
exit $rc
