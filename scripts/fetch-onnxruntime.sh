#!/usr/bin/env bash
# Puts ONNX Runtime's shared library at build/onnxruntime/libonnxruntime.so.1 for
# github.com/yalue/onnxruntime_go. Debian has no onnxruntime package and the npm registry is the one
# place here that ships a prebuilt build matching the binding's headers (ORT 1.24.1), inside
# onnxruntime-node. Only `npm pack` is used, so none of the package's install scripts run.
set -euo pipefail
cd "$(dirname "$0")/.."

version=1.24.1
want=53ef1ac028dd1b05554b8da28d9159eb3876f99868193d2aaa6e67f0243c23d4
member=package/bin/napi-v6/linux/x64/libonnxruntime.so.1
out=build/onnxruntime/libonnxruntime.so.1

if [ -f "$out" ] && [ "$(sha256sum "$out" | cut -d' ' -f1)" = "$want" ]; then
  echo "runtime: $out is up to date"
  exit 0
fi

if [ "$(uname -s)/$(uname -m)" != Linux/x86_64 ]; then
  echo "runtime: only linux/x86_64 is provided (this is $(uname -s)/$(uname -m))" >&2
  exit 1
fi
if ! command -v npm >/dev/null; then
  echo "runtime: npm is needed (apt-get install -y nodejs npm)" >&2
  exit 1
fi

mkdir -p "$(dirname "$out")"
# The work directory sits beside the target so the final mv is an atomic rename.
tmp=$(mktemp -d build/onnxruntime/fetch.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

echo "runtime: npm pack onnxruntime-node@$version (about 100 MB)"
npm pack --ignore-scripts --silent --pack-destination "$tmp" "onnxruntime-node@$version" >/dev/null
tar -xzf "$tmp/onnxruntime-node-$version.tgz" -C "$tmp" "$member"

got=$(sha256sum "$tmp/$member" | cut -d' ' -f1)
if [ "$got" != "$want" ]; then
  echo "runtime: SHA-256 MISMATCH for $member of onnxruntime-node@$version" >&2
  echo "runtime:   want $want" >&2
  echo "runtime:   got  $got" >&2
  exit 1
fi
mv -f "$tmp/$member" "$out"
echo "runtime: wrote $out ($(stat -c %s "$out") bytes, sha256 $got)"
