#!/usr/bin/env bash
# bench/gpu_models_compare.py without a GPU: argument errors, the table it writes
# (--dry-run, and rows with known figures), and, where this Python has torch, one
# tiny model measured end to end on the CPU (export, `reprokit check --repeat`).
set -u
script="$TEST_SRCDIR/reprokit/bench/gpu_models_compare.py"
bin="$TEST_SRCDIR/reprokit/tools/reprokit"
out="$TEST_TMPDIR/out" err="$TEST_TMPDIR/err"
fails=0
fail() { echo "FAIL: $*"; cat "$out" "$err"; fails=$((fails+1)); }
expect() {  # expect CODE DESCRIPTION -- command...
  local want=$1 what=$2; shift 3
  "$@" >"$out" 2>"$err"; local got=$?
  if [[ $got != "$want" ]]; then fail "$what: exit $got, want $want"; else echo "ok: $what"; fi
}

expect 2 "unknown model" -- python3 "$script" --out "$TEST_TMPDIR/t" --models resnet18,nope
grep -q "unknown model(s) \['nope'\]" "$err" || fail "unknown model not named"
expect 2 "--repeat 0" -- python3 "$script" --out "$TEST_TMPDIR/t" --repeat 0
expect 2 "no --out" -- python3 "$script" --dry-run

printf '#!/bin/sh\necho "usage: reprokit check GRAPH"\n' >"$TEST_TMPDIR/old_reprokit"
chmod +x "$TEST_TMPDIR/old_reprokit"
expect 2 "a reprokit without check --repeat" -- \
  python3 "$script" --out "$TEST_TMPDIR/t" --models tiny_cnn --reprokit "$TEST_TMPDIR/old_reprokit"
grep -q "has no \`check --repeat\`: rebuild it" "$err" || fail "old binary not refused clearly"

expect 0 "dry run" -- python3 "$script" --out "$TEST_TMPDIR/dry" --dry-run --reprokit "$bin"
[[ $(grep -c "^|" "$TEST_TMPDIR/dry/gpu_models.md") == 7 ]] || fail "dry-run table: not a header, a rule and 5 rows"
for m in ResNet-18 ConvNeXt-T DeiT-Tiny DistilBERT EfficientNet-B0; do
  grep -q "^| $m | - |" "$TEST_TMPDIR/dry/gpu_models.md" || fail "dry-run table lacks $m"
done
grep -q "check --device cuda --repeat 50 --warmup 5 --json" "$out" || fail "plan lacks the check command"

# The table from known figures: the ratio is ours' median over Inductor's.
(cd "$(dirname "$script")" && python3 - <<'PY') >"$out" 2>"$err" || fail "table from known rows"
import gpu_models_compare as g
rows = [{"model": "a", "label": "A", "ours": {"compile_s": 1.234, "median_ms": 3.0, "verdict": "pass"},
         "inductor": {"compile_s": 10.0, "median_ms": 1.5},
         "ort": {"median_ms": 2.0, "provider": "CPUExecutionProvider", "note": "no CUDA provider"}},
        {"model": "b", "label": "B", "ours": {"error": "exit 2: bad | model"}, "inductor": {"median_ms": 1.0}}]
t = g.table(rows).splitlines()
assert t[2] == "| A | 1.23 | 3.000 | 10.00 | 1.500 | 2.00x | 2.000 (CPU EP) | verdict pass; ort: no CUDA provider |", t[2]
assert t[3].startswith("| B | - | - | - | 1.000 | - | - | ours: exit 2: bad / model"), t[3]
s = g.summarize([4.0, 1.0, 3.0, 2.0])
assert s == {"runs": 4, "min_ms": 1.0, "median_ms": 2.5, "mean_ms": 2.5, "max_ms": 4.0}, s
PY

torch_python=""
for py in python3 /usr/bin/python3; do
  if "$py" -c "import torch, onnx" 2>/dev/null; then torch_python="$py"; break; fi
done
if [[ -n "$torch_python" ]]; then
  expect 0 "tiny model on the cpu" -- "$torch_python" "$script" --out "$TEST_TMPDIR/cpu" --device cpu \
    --models tiny_cnn --repeat 3 --warmup 1 --reprokit "$bin" --exporter legacy
  python3 - "$TEST_TMPDIR/cpu/gpu_models.json" <<'PY' || fail "tiny model figures"
import json, sys
row = json.load(open(sys.argv[1]))["rows"][0]
ours = row["ours"]
assert ours["verdict"] == "pass" and ours["runs"] == 3 and ours["warmup"] == 1, ours
assert 0 < ours["min_ms"] <= ours["median_ms"] <= ours["max_ms"] < 10000, ours
assert ours["compile_s"] > 0, ours
assert row["export"]["exporter"] == "legacy", row["export"]
PY
  # The Inductor and ONNX Runtime timing loops, where this torch has no torch.compile and
  # there is no onnxruntime: an identity compile and a stand-in session (the loops, the
  # figures and the "no CUDA provider" fallback are what is checked, not those libraries).
  (cd "$(dirname "$script")" && "$torch_python" - <<'PY') >"$out" 2>"$err" || fail "timing loops"
import sys, types
import torch
import gpu_models_compare as g
if not hasattr(torch, "compile"):
    torch.compile = lambda m: m
a = types.SimpleNamespace(device="cpu", warmup=1, repeat=3)
net, args, _ = g.MODELS["tiny_cnn"][1]()
net.eval()
r = g.run_inductor(a, net, args)
assert r["runs"] == 3 and r["eager"]["runs"] == 3 and r["compile_s"] >= 0, r
assert 0 < r["min_ms"] <= r["median_ms"] <= r["max_ms"], r

class Session:
    def __init__(self, path, providers):
        self.providers = providers
    def get_providers(self):
        return self.providers
    def get_inputs(self):
        return [types.SimpleNamespace(name="x")]
    def run(self, names, feeds):
        assert names is None and list(feeds) == ["x"] and feeds["x"].shape == (1, 3, 16, 16)
        return [feeds["x"]]
ort = types.ModuleType("onnxruntime")
ort.__version__ = "stand-in"
ort.InferenceSession = Session
ort.get_available_providers = lambda: ["CPUExecutionProvider"]
sys.modules["onnxruntime"] = ort
a.device = "cuda"
r = g.run_ort(a, "unused.onnx", args)
assert r["provider"] == "CPUExecutionProvider" and "no CUDA provider" in r["note"], r
assert r["runs"] == 3 and r["clock"] == "wall", r
PY
else
  echo "skip: no python3 with torch and onnx: the end-to-end CPU case is not run"
fi
exit $((fails > 0))
