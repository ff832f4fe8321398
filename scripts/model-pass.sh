#!/usr/bin/env bash
# The model pass of `make test-all`: the tests of packages training (the full evaluations of the
# trained models and their reproduction, sharing one feature extraction over 43,200 images — each
# image, a degraded and a hard copy — and the age ranges' reproduction) and training/hardcase (the hard-case pictures measured again): the
# packages of testenv.Evaluation, without the race detector and under `nice`, its lines prefixed
# with [models]. Its exit status is written to the file named by the first argument when it ends,
# however it ends, so that scripts/test-all.sh can wait for a pass it did not start: .ci/run starts
# it as soon as the runtime, the models, the photos without people and libturbojpeg are in place,
# while the browsers and PostgreSQL are still being installed.
set -uo pipefail
cd "$(dirname "$0")/.."
rcfile=$1
rc=1
trap 'echo "$rc" >"$rcfile.tmp" && mv "$rcfile.tmp" "$rcfile"' EXIT
# A pass already made on the same inputs proves nothing new: it is skipped when they hash to the
# stamp that `make model-pass` wrote after a full pass (HENSACHI_MODEL_PASS=full runs it anyway).
stamp=.ci/model-pass.sha256
if [ "${HENSACHI_MODEL_PASS:-}" != full ] && [ -s "$stamp" ]; then
  inputs=$(scripts/model-inputs.sh)
  if [ "$inputs" = "$(cut -d' ' -f1 "$stamp")" ]; then
    echo "[models] the inputs hash to the stamp ($stamp: $(cut -d' ' -f2- "$stamp")): the committed models were reproduced and evaluated on exactly these; skipped"
    rc=0
    exit
  fi
  echo "[models] the inputs changed since the stamp: the full pass"
fi
# The extraction alone is 45 minutes of two cores here (2026-11-28): the limit leaves room for a
# busy machine; CI, which skips a stamped pass, could not finish one beside the race pass anyway.
HENSACHI_TEST_ALL=1 nice -n 19 ${GO:-go} test -count=1 -timeout 120m ./training ./training/hardcase 2>&1 | sed -u 's/^/[models] /'
rc=${PIPESTATUS[0]}
