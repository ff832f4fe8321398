#!/usr/bin/env bash
# `make serve`: builds what is missing, one line per step (and one every 10 s while a step works),
# and starts the server with the services it could prepare. Nothing is trained or evaluated here:
# the committed models are copied into the bundle, and `make test-all` checks that training
# reproduces them.
#
# A service whose inputs cannot be had is left off with the reason (the face service needs the ONNX
# Runtime library and the model bundle; the statistics service needs the government source files,
# ../shared/data/raw or data/raw); the server starts when at least one of them is ready.
#
#   scripts/serve.sh [flags of hensachi serve…]     (DATASET, MODELS_DIR and MAKE from make)
set -uo pipefail
cd "$(dirname "$0")/.."
make=(${MAKE:-make} --no-print-directory)
dataset=${DATASET:-data/dataset.arrow}
models=${MODELS_DIR:-models}
start=$SECONDS
steps=5

# step N TITLE COMMAND…: runs COMMAND with a line before it and, while it runs, a line every 10 s.
step() {
  local n=$1 title=$2 begun=$SECONDS
  shift 2
  echo "serve: [$n/$steps] $title"
  (
    while sleep 10; do echo "serve: [$n/$steps] $title: $((SECONDS - begun)) s…"; done
  ) &
  local ticker=$!
  "$@"
  local rc=$?
  kill "$ticker" 2>/dev/null
  wait "$ticker" 2>/dev/null
  echo "serve: [$n/$steps] $title: $([ $rc = 0 ] && echo done || echo FAILED) in $((SECONDS - begun)) s"
  return $rc
}

# quietly LOG COMMAND…: runs COMMAND with its output in LOG, shown only when it fails.
quietly() {
  local log=$1
  shift
  mkdir -p "$(dirname "$log")"
  "$@" >"$log" 2>&1 && return 0
  local rc=$?
  tail -n 20 "$log" >&2
  echo "serve: the whole output is in $log" >&2
  return $rc
}

# The runtime library is a download and the binary a compilation: they are fetched and built side by
# side, and so are the model bundle and the dataset once the binary is there.
step 2 "ONNX Runtime's library, for the face service" "${make[@]}" runtime &
runtime=$!
step 1 "the binary bin/hensachi" "${make[@]}" build || exit 1

face_off=""
wait "$runtime" || face_off="no ONNX Runtime library (see the lines above)"

step 3 "libjpeg-turbo, for scaled JPEG decoding (optional)" "${make[@]}" turbojpeg ||
  echo "serve: without libjpeg-turbo, photos are decoded at full resolution"

if [ -z "$face_off" ]; then
  step 4 "the face model bundle in $models" "${make[@]}" models MODELS_DIR="$models" &
  bundle=$!
else
  echo "serve: [4/$steps] the face model bundle: skipped, the face service stays off"
fi

town_off=""
# The ingest's report on every null is long; it is kept in build/serve-ingest.log.
step 5 "the municipality dataset $dataset" quietly build/serve-ingest.log "${make[@]}" "$dataset" DATASET="$dataset" ||
  town_off="the dataset could not be built from the source files (../shared/data/raw or data/raw; docs/data.md, Rebuilding the dataset)"
if [ -z "$face_off" ] && ! wait "$bundle"; then
  face_off="the model bundle could not be assembled (see the lines above)"
fi

services=()
[ -z "$town_off" ] && services+=(town)
[ -z "$face_off" ] && services+=(face)
[ -n "$town_off" ] && echo "serve: the statistics service stays off: $town_off" >&2
[ -n "$face_off" ] && echo "serve: the face service stays off: $face_off" >&2
if [ ${#services[@]} = 0 ]; then
  echo "serve: neither service could be prepared; nothing to serve" >&2
  exit 1
fi
IFS=,
echo "serve: starting after $((SECONDS - start)) s with the services ${services[*]}"
exec bin/hensachi serve -services "${services[*]}" -dataset "$dataset" -models "$models" "$@"
