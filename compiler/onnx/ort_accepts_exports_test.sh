#!/usr/bin/env bash
# ONNX Runtime accepts what the exporter writes: random generator graphs
# (every op, mixed dtypes) are exported with `reprokit export --onnx`, loaded
# into real ONNX Runtime (npm's onnxruntime-node, installed by
# tools/install_deps.sh into third_party/onnxruntime_node/node_modules) and
# run on the generator's inputs; integer and bool outputs must equal the
# reference interpreter's, float32/float64 outputs come close. A model ONNX
# Runtime calls invalid fails the test; an op and dtype its CPU build has no
# kernel for is counted, not failed (a limit of the runtime, not the model).
# Skips, saying so, only when onnxruntime-node is not installed.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
R="${TEST_SRCDIR}/reprokit/tools/reprokit"
W="${TEST_SRCDIR}/reprokit/compiler/onnx/write_random_models"
RUN="$(realpath "${TEST_SRCDIR}/reprokit/compiler/onnx/ort_run_models.js")"
ORT="$(dirname "$RUN")/../../third_party/onnxruntime_node/node_modules/onnxruntime-node"
if [[ ! -d "$ORT" ]]; then
  echo "SKIP: onnxruntime-node is not installed ($ORT missing; tools/install_deps.sh installs it)"
  exit 0
fi
command -v node >/dev/null || fail "node is not on PATH but onnxruntime-node is installed"
T="${TEST_TMPDIR:-$(mktemp -d)}"
M="$T/models"
"$W" "$M" --seed 1 --count "${ORT_EXPORT_COUNT:-400}" --nodes 16
[[ -s "$M/refused.txt" ]] && fail "the exporter refused generated graphs: $(head -3 "$M/refused.txt")"
# The models ONNX Runtime sees are the CLI's: `export` of each graph's text
# replaces the one the generator's process wrote.
n=0
for g in "$M"/*.rk; do
  "$R" export "$g" --onnx -o "${g%.rk}.onnx" --no-data >/dev/null 2>"$T/export.err" ||
    fail "reprokit export $g: $(cat "$T/export.err")"
  n=$((n + 1))
done
(( n > 0 )) || fail "no graphs written"
set +e
node "$RUN" "$ORT" "$M" >"$T/ort.log" 2>"$T/ort.err"
rc=$?
set -e
summary="$(tail -1 "$T/ort.log")"
echo "$summary"
[[ "$summary" == models* ]] || fail "ort_run_models printed no summary: $(tail -5 "$T/ort.err")"
if (( rc != 0 )); then
  grep -v "Could not find an implementation\|Unsupported data type" "$T/ort.log" | head -20 >&2
  fail "ONNX Runtime rejected or miscomputed exported models"
fi
# Most graphs must get through: a drop means the exporter or the generator
# changed what ONNX Runtime can take.
created="$(sed -E 's/.* created ([0-9]+) .*/\1/' <<<"$summary")"
(( created * 100 >= n * 60 )) || fail "only $created of $n models load in ONNX Runtime"
echo "PASS: $n exported graphs, ONNX Runtime: $summary"
