#!/usr/bin/env bash
# The torch_inductor adapter on a machine with a GPU and torch 2.x (run from the
# repository root; not a Bazel test, no GPU in CI):
#   1. lowering_test.sh under this torch, graphs on cuda: the lowering alone
#      (compile_backend=eager) gives every declared shape and dtype;
#   2. a short `reprokit fuzz --backends torch_inductor@cuda` campaign: no
#      "adapter fault" (the lowering failing or returning the wrong type
#      eagerly too, or Dynamo unable to trace an rk_* function), no run error
#      of the adapter's old shape check ("has shape ..., expected"), and every
#      shape_mismatch listed (Inductor's own: the lowering gives the declared
#      type eagerly on the same graph).
# Prints the figures; exits non-zero when one of the above fails.
#   REPROKIT=/path/to/reprokit [PYTHON=/opt/torch/.venv/bin/python3] [SECONDS_=60] \
#     [DEVICE=cuda] backends/torch_inductor/gpu_check.sh [--backend-opt K=V ...]
set -uo pipefail
R="${REPROKIT:?REPROKIT names the reprokit binary}"
python="${PYTHON:-/opt/torch/.venv/bin/python3}"
seconds="${SECONDS_:-60}"
device="${DEVICE:-cuda}"  # DEVICE=cpu: the same on the CPU
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
T="$(mktemp -d /tmp/ti_gpu_check.XXXXXX)"
status=0
export REPROKIT_BACKEND_POOL=off
# `--backends torch_inductor` finds backends/torch_inductor/serve of this tree.
export REPROKIT_ROOT="$(cd "$here/../.." && pwd)"
# The adapter runs as `python3` from PATH: this interpreter's.
export PATH="$(dirname "$python"):$PATH"

echo "=== 1. the lowering eagerly on $device ($("$python" -c 'import torch; print(torch.__version__)'))"
REPROKIT="$R" PYTHON="$python" LOWERING_TEST_DEVICE="$device" "$here/lowering_test.sh" 2>&1 | tail -4
[[ ${PIPESTATUS[0]} == 0 ]] || { echo "FAIL: lowering_test.sh"; status=1; }

echo "=== 2. fuzz --backends torch_inductor@$device --time ${seconds}s -j 4 --seed 7 $*"
"$R" fuzz --backends "torch_inductor@$device" --time "${seconds}s" -j 4 --seed 7 --no-emit --quiet "$@" \
  -o "$T/campaign" > "$T/fuzz.txt" 2>&1
rc=$?
echo "fuzz exit $rc (0: no new finding, 1: findings)"
[[ $rc == 0 || $rc == 1 ]] || { tail -20 "$T/fuzz.txt"; status=1; }
"$python" - "$T/campaign/summary.json" <<'PY' || status=1
import json, sys
j = json.load(open(sys.argv[1]))
[config] = j["configurations"].values()
stats = j["stats"]
print("generated %d, judged %d, not applicable %d, errors %d"
      % (config["generated"], config["judged"], config["not_applicable"], config["errors"]))
print("verdicts:", json.dumps(stats["verdicts"], sort_keys=True))
bad = []
for reason, n in sorted(stats["not_applicable"].items()):
    print("not applicable x%d: %s" % (n, reason))
    if "adapter fault" in reason:
        bad.append("adapter fault x%d: %s" % (n, reason))
for f in j["findings"]:
    print("finding %s hits %d: %s" % (f["signature"], f["hits"], f["message"][:300]))
    if "has shape" in f["message"] and "expected" in f["message"]:
        bad.append("the adapter still checks shapes: " + f["message"][:300])
if config["errors"]:
    bad.append("%d judgements failed to run" % config["errors"])
for b in bad:
    print("BAD:", b)
print("PASS" if not bad else "FAIL")
sys.exit(1 if bad else 0)
PY
rm -rf "$T"
exit $status
