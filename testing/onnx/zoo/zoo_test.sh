#!/usr/bin/env bash
# The zoo exports in data/ (GPT-2, Llama, transformers' ViT, DenseNet: torch
# 2.11's default exporter, IR 10, opset 20) through `reprokit import`,
# `capture --inputs` with PyTorch's inputs, `check` on the CPU and `run`; each
# output must be within 1e-3 of PyTorch's recorded one (compare.py).
set -euo pipefail

fail() { echo "FAIL: $*" >&2; exit 1; }
runfile() { local p="${TEST_SRCDIR}/reprokit/$1"; [[ -e "$p" ]] || fail "missing runfile $1"; echo "$p"; }
python=/usr/bin/python3
"$python" -c "import numpy" 2>/dev/null || fail "$python cannot import numpy (tools/install_deps.sh installs python3-numpy)"

REPROKIT="$(runfile tools/reprokit)"
COMPARE="$(runfile testing/onnx/zoo/compare.py)"
DATA="$(dirname "$(runfile testing/onnx/zoo/data/gpt2/model.onnx)")/.."
T="${TEST_TMPDIR:-$(mktemp -d)}"

want=(densenet gpt2 hf_vit llama)
for m in "${want[@]}"; do
  [[ -e "$DATA/$m/model.onnx.data" && -e "$DATA/$m/output_0.npy" ]] || fail "data/$m is incomplete"
done

"$python" "$COMPARE" "$DATA" --reprokit "$REPROKIT" --devices cpu --jobs 2 --out "$T/out" \
  --require-pass 1e-3 || fail "a zoo model does not import, check or match PyTorch (table above)"

# compare.py judged every model it found, each one by its verdict, and no
# PyTorch output is constant (a zero-initialized head would compare as 0 error).
"$python" - "$T/out/results.json" "$DATA" "${want[@]}" <<'PY'
import json, os, sys
import numpy as np
results, data, want = sys.argv[1], sys.argv[2], sys.argv[3:]
r = json.load(open(results))
names = sorted(m["name"] for m in r["models"])
assert names == sorted(want), names
for m in r["models"]:
    assert m["check"].get("cpu") == "pass", m
    assert m["rel_err"]["cpu"] <= 1e-3, m
    ref = np.load(os.path.join(data, m["name"], "output_0.npy"))
    assert ref.std() > 0, f"{m['name']}: PyTorch's output is constant; the comparison says nothing"
print("PASS:", ", ".join(f"{m['name']} {m['rel_err']['cpu']:.1e}" for m in r["models"]))
PY
