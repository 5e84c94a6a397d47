#!/usr/bin/env bash
# The torch_inductor adapter's lowering without any compiler (torch.fx module
# run eagerly: compile_backend=eager), so it runs on Debian's torch 1.13 (CI):
#   - serve_test.py: regressions of the lowering (scalar inputs kept scalar,
#     gather's negative axis) and how failures are classified (the compiler's,
#     or the adapter's own);
#   - `reprokit fuzz` over 400 generated graphs of 16 nodes through the real
#     serve loop: every output of exactly the declared shape and dtype (no
#     shape_mismatch, no "adapter fault"), no semantic disagreement with the
#     reference (no accuracy:miscompile), and the only failures torch 1.13's
#     missing f16/bf16 CPU kernels.
# Skipped (passes, saying why) where the interpreter cannot import torch.
# Outside Bazel (the GPU check, backends/torch_inductor/gpu_check.sh): run from
# the repository root with REPROKIT=<binary>, PYTHON=<interpreter with torch>
# and LOWERING_TEST_DEVICE=cuda to run the graphs on the GPU.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
runfile() {
  local p="${TEST_SRCDIR:+${TEST_SRCDIR}/reprokit/}$1"
  [[ -z "${TEST_SRCDIR:-}" && $1 == tools/reprokit ]] && p="${REPROKIT:?REPROKIT names the binary outside Bazel}"
  [[ -e "$p" ]] || fail "missing runfile $1"
  echo "$p"
}
# Debian's interpreter: its dist-packages hold python3-torch and python3-numpy.
python="${PYTHON:-/usr/bin/python3}"
device="${LOWERING_TEST_DEVICE:-cpu}"
if ! (cd / && "$python" -c 'import torch, torch.fx, numpy') 2>/dev/null; then
  echo "skipped: $python cannot import torch (torch_inductor lowering)"
  exit 0
fi
export PYTHONDONTWRITEBYTECODE=1 REPROKIT_BACKEND_POOL=off
R="$(runfile tools/reprokit)"
serve="$(runfile backends/torch_inductor/serve)"
tests="$(dirname "$(runfile backends/torch_inductor/serve_test.py)")"
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/ti_lowering.XXXXXX")"

(cd "$tests" && "$python" -m unittest -v serve_test 2>&1) || fail "serve_test.py"

# The adapter under this interpreter, whatever python3 is first on PATH.
printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$python" "$serve" > "$T/torch_eager"
chmod +x "$T/torch_eager"
set +e
"$R" fuzz --backends "$T/torch_eager@$device" --backend-opt compile_backend=eager --iterations 400 \
  --seed 7 --nodes 16 -j 2 --no-emit --minimize-time 2 --quiet -o "$T/run" > "$T/fuzz.txt" 2>&1
rc=$?
set -e
[[ $rc == 0 || $rc == 1 ]] || { tail -40 "$T/fuzz.txt"; fail "fuzz exited $rc"; }
"$python" - "$T/run/summary.json" <<'PY' || fail "the lowering's outputs (above)"
import json, re, sys
j = json.load(open(sys.argv[1]))
[config] = j["configurations"].values()
stats = j["stats"]
print("generated %d, judged %d, not applicable %d, errors %d; verdicts %s"
      % (config["generated"], config["judged"], config["not_applicable"], config["errors"],
         stats["verdicts"]))
bad = []
if config["judged"] < 0.95 * config["generated"] or config["generated"] < 400:
    bad.append("judged %d of %d graphs" % (config["judged"], config["generated"]))
if config["errors"]:
    bad.append("%d judgements failed to run" % config["errors"])
for reason, n in stats["not_applicable"].items():
    bad.append("not applicable x%d: %s" % (n, reason))
for verdict, n in stats["verdicts"].items():
    if verdict.split(":")[-1] not in ("pass", "accuracy", "compile_error"):
        bad.append("verdict %s x%d" % (verdict, n))
# The only failures eager may have: kernels torch lacks, f16/bf16 on torch
# 1.13's CPU, and integer matmul on CUDA ("baddbmm_cuda" not implemented for
# 'Int': torch's CUDA matmul is for floats; the adapter reports that graph as
# not applicable, never as a finding).
missing_kernel = re.compile(r"not implemented for '(Half|BFloat16)'"
                            r"|(addmm|bmm|baddbmm|mm|mv|dot)_cuda\" not implemented for '(Int|Long)'")
for f in j["findings"]:
    sig = f["signature"]
    if f["verdict_signature"].startswith("accuracy:precision:"):
        continue  # rounding of low precision: eager torch's, judged as such
    if f["verdict_signature"].startswith("compile_error:") and missing_kernel.search(f["message"]):
        continue
    bad.append("%s: %s\n%s" % (sig, f["message"], f["minimized_graph"]))
for b in bad:
    print("BAD:", b)
sys.exit(1 if bad else 0)
PY
echo PASS
