#!/usr/bin/env bash
# Regenerates the seeds of the store_object, unpack, bundle and onnx_import
# harnesses (tools/fuzzers/corpus/) with a built reprokit: bundles captured
# from a graph with stored constants, from the bundle harness's own graph
# (seeded and stored inputs) and from examples/, packed; their repro.json
# files and store objects; examples/ exported to ONNX beside the models of
# backends/testdata. The rk_text seeds are examples/, tools/testdata and the graphs in
# the compiler's tests; the flags seeds are written by hand.
#
#   tools/fuzzers/make_seeds.sh [path/to/reprokit]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin="${1:-$root/bazel-bin/tools/reprokit}"
corpus="$root/tools/fuzzers/corpus"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp/const.rk" <<'PY'
import sys
vals = ', '.join(str(i * 0.5) for i in range(100))
ints = ', '.join(str(i) for i in range(80))
open(sys.argv[1], 'w').write(
    'graph @c(%x: f32[100]) {\n'
    f'  %c = constant() {{value=dense<f32[100]>[{vals}]}} : f32[100]\n'
    f'  %k = constant() {{value=dense<i32[80]>[{ints}]}} : i32[80]\n'
    '  %s = add(%x, %c) : f32[100]\n  %r = relu(%s) : f32[100]\n  return %r, %k\n}\n')
PY
printf 'graph @g(%%x: f32[4], %%y: f32[4]) {\n  %%s = add(%%x, %%y) : f32[4]\n  %%r = relu(%%s) : f32[4]\n  return %%r\n}\n' > "$tmp/g.rk"
head -c 16 /dev/urandom > "$tmp/x.bin"
"$bin" capture "$tmp/const.rk" --opt faults=relu:accuracy -o "$tmp/const" >/dev/null
"$bin" capture "$tmp/g.rk" --opt faults=relu:accuracy -o "$tmp/g_seeded" >/dev/null
"$bin" capture "$tmp/g.rk" --inputs "$tmp/x.bin" --inputs "$tmp/x.bin" --opt faults=add:accuracy \
  -o "$tmp/g_blob" >/dev/null
"$bin" capture "$root/examples/mlp.rk" -o "$tmp/mlp" >/dev/null
"$bin" capture "$root/examples/mixed_bf16.rk" --opt faults=relu:runtime_crash -o "$tmp/bf16" >/dev/null
mkdir -p "$corpus/bundle" "$corpus/unpack" "$corpus/store_object"
for b in g_seeded g_blob const mlp bf16; do
  "$bin" pack "$tmp/$b" -o "$tmp/$b.tar.zst" >/dev/null
  cp "$tmp/$b/repro.json" "$corpus/bundle/$b.json"
  cp "$tmp/$b.tar.zst" "$corpus/unpack/$b.tar.zst"
done
i=0
for f in $(find "$tmp" -path '*blobs/cas/*' -type f | sort); do
  i=$((i + 1)); cp "$f" "$corpus/store_object/object_$i"
done
mkdir -p "$corpus/onnx_import"
cp "$root"/backends/testdata/*.onnx "$corpus/onnx_import/"
for g in attention layer_norm softmax mlp mixed_bf16; do
  "$bin" export "$root/examples/$g.rk" --onnx -o "$tmp/$g.onnx" >/dev/null
  cp "$tmp/$g.onnx" "$corpus/onnx_import/exported_$g.onnx"
done
