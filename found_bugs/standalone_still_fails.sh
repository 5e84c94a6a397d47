#!/usr/bin/env bash
# A found bug's standalone reproducer (repro.js, ONNX Runtime on Node.js) as a
# known failure: passes while the script exits 1 (the bug is present), fails
# once it exits 0 (fixed?), passes with the reason when it cannot test (2).
# Usage: standalone_still_fails.sh <name>/standalone (relative to found_bugs/).
set -uo pipefail
root="${TEST_SRCDIR:-}/${TEST_WORKSPACE:-}"
[[ -d "$root/found_bugs" ]] || root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$root/found_bugs/$1"
serve_js="$(readlink -f "$root/backends/onnxruntime/serve_node.js")"
export NODE_PATH="${NODE_PATH:-$(dirname "$serve_js")/../../third_party/onnxruntime_node/node_modules}"
version="$(node -e 'console.log(require("onnxruntime-node/package.json").version)' 2>/dev/null)"
node "$dir/repro.js"
code=$?
case $code in
  1) echo "PASS: still present in onnxruntime-node ${version:-?}"; exit 0 ;;
  0) echo "FAIL: $1 no longer reproduces: fixed in onnxruntime-node ${version:-?}? remove it from the known failures (docs/FOUND_BUGS.md)"; exit 1 ;;
  2) echo "SKIP: cannot test here (exit 2 of repro.js)"; exit 0 ;;
  *) echo "FAIL: repro.js exited $code"; exit 1 ;;
esac
