#!/usr/bin/env bash
# The torch_inductor, jax_xla and onnxruntime adapters through the protocol
# (backends/python/backend_client.py): every graph of backends/testdata/ on cpu
# (and cuda where there is one) against a NumPy float64 evaluation, Inductor's
# planted relu bugs switched on through options, bad options refused. The
# torch_inductor and jax_xla adapters are skipped where torch or jax is
# missing (CI); the
# onnxruntime adapter runs everywhere on Node.js (and also on Python's
# onnxruntime where that is installed, as on the GPU machine: docs/BACKENDS.md).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python="${PYTHON:-python3}"
client="$here/python/backend_client.py"
data="$here/testdata"
failures=0
check() {  # check WHAT EXPECTED_EXIT COMMAND...
  local what="$1" want="$2"
  shift 2
  echo "--- $what"
  "$@"
  local got=$?
  if [[ $got != "$want" ]]; then
    echo "FAIL: $what: exit $got, expected $want"
    failures=$((failures + 1))
  fi
}

devices=(cpu)
if (cd / && "$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)') 2>/dev/null; then
  devices+=(cuda)
fi

if ! (cd / && "$python" -c 'import torch, numpy') 2>/dev/null; then
  echo "skipped: torch not installed (torch_inductor adapter)"
else
  ti="$here/torch_inductor/serve"
  for device in "${devices[@]}"; do
    check "torch_inductor $device: every test graph" 0 \
      "$python" "$client" "$ti" "$data"/*.rk --device "$device"
  done
  check "torch_inductor cpu: planted accuracy bug is seen" 1 \
    "$python" "$client" "$ti" "$data/elementwise.rk" --opt cpp.inject_relu_bug_TESTING_ONLY=accuracy
  check "torch_inductor cpu: planted compile error" 0 \
    "$python" "$client" "$ti" "$data/elementwise.rk" \
    --opt cpp.inject_relu_bug_TESTING_ONLY=compile_error --expect-failure compile_error
  if [[ " ${devices[*]} " == *" cuda "* ]]; then
    check "torch_inductor cuda: planted accuracy bug is seen" 1 \
      "$python" "$client" "$ti" "$data/elementwise.rk" --device cuda \
      --opt triton.inject_relu_bug_TESTING_ONLY=accuracy
  fi
  check "torch_inductor: unknown option refused" 0 \
    "$python" "$client" "$ti" "$data/elementwise.rk" --opt no.such_key=1 --expect-failure unsupported
  # The lowering alone, no torch.compile (what lowering_test.sh runs on torch 1.13).
  check "torch_inductor cpu: compile_backend=eager, every test graph" 0 \
    "$python" "$client" "$ti" "$data"/*.rk --opt compile_backend=eager
  check "torch_inductor: unknown compile_backend refused" 0 \
    "$python" "$client" "$ti" "$data/elementwise.rk" --opt compile_backend=nvfuser \
    --expect-failure unsupported
fi

# jax_xla: its rows live beside the adapter (backends/jax_xla/adapter_checks.sh,
# also run by its GPU check); they skip, saying why, where jax is missing (CI).
PYTHON="$python" bash "$here/jax_xla/adapter_checks.sh" || failures=$((failures + 1))

# onnxruntime: through Node.js (onnxruntime-node, installed on every machine by
# tools/install_deps.sh: never skipped) and, where it can be imported, through
# Python's onnxruntime.
ox="$here/onnxruntime/serve"
# The client needs numpy: Debian's python3 has it (python3-numpy) where the
# python3 on PATH may not.
ox_client_python="$python"
(cd / && "$python" -c 'import numpy') 2>/dev/null || ox_client_python=/usr/bin/python3
ox_runtimes=(node)
if (cd / && "$python" -c 'import onnxruntime, numpy') 2>/dev/null; then
  ox_runtimes+=(python)
else
  echo "python onnxruntime not installed: the onnxruntime adapter runs on node only"
fi
# The Node.js side's own framing: end of input and shutdown end it with 0, a
# frame that is not one with 2; an unknown runtime is refused with 2.
expect_exit() {  # WHAT WANT COMMAND...
  local what="$1" want="$2"
  shift 2
  echo "--- $what"
  "$@" >/dev/null 2>"${TEST_TMPDIR:-/tmp}/ox_stderr.$$"
  local got=$?
  if [[ $got != "$want" ]]; then
    echo "FAIL: $what: exit $got, expected $want"
    cat "${TEST_TMPDIR:-/tmp}/ox_stderr.$$"
    failures=$((failures + 1))
  fi
  rm -f "${TEST_TMPDIR:-/tmp}/ox_stderr.$$"
}
expect_exit "onnxruntime (node): end of input" 0 env REPROKIT_ORT_RUNTIME=node "$ox" </dev/null
expect_exit "onnxruntime (node): not a frame" 2 \
  bash -c 'printf "NOPE0000000000000000" | REPROKIT_ORT_RUNTIME=node "$0"' "$ox"
expect_exit "onnxruntime (node): shutdown (what follows is not read)" 0 bash -c \
  'printf "RKBP\x13\0\0\0\0\0\0\0\0\0\0\0{\"type\":\"shutdown\"}NOPE0000000000000000" | REPROKIT_ORT_RUNTIME=node "$0"' "$ox"
expect_exit "onnxruntime: unknown runtime refused" 2 env REPROKIT_ORT_RUNTIME=java "$ox" </dev/null
# Request ids up to 2^63 come back exactly (the pool's warm-up uses 2^62; a
# JS number holds 2^53).
check "onnxruntime (node): a 2^62 request id comes back exactly" 0 \
  env REPROKIT_ORT_RUNTIME=node "$ox_client_python" - "$ox" "$here/python" <<'EOF'
import io, subprocess, sys
sys.path.insert(0, sys.argv[2])
import reprokit_backend as rb
p = subprocess.Popen([sys.argv[1]], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
hello, _ = rb.read_frame(p.stdout)
frame = io.BytesIO()
rb.write_frame(frame, {"type": "run", "id": 2**62 + 1, "graph": {"rk": "graph"}})
p.stdin.write(frame.getvalue())
p.stdin.flush()
reply, _ = rb.read_frame(p.stdout)
p.stdin.close()
p.wait()
print("reply:", reply)
sys.exit(0 if reply["id"] == 2**62 + 1 and reply["kind"] == "unsupported" else 1)
EOF

for runtime in "${ox_runtimes[@]}"; do
  export REPROKIT_ORT_RUNTIME=$runtime
  ox_devices=(cpu)
  if [[ $runtime == python ]] && (cd / && "$python" -c 'import onnxruntime, sys; sys.exit("CUDAExecutionProvider" not in onnxruntime.get_available_providers())') 2>/dev/null; then
    ox_devices+=(cuda)
  fi
  for device in "${ox_devices[@]}"; do
    for level in all disable; do
      check "onnxruntime ($runtime) $device, graph_optimization_level=$level: every test graph" 0 \
        "$ox_client_python" "$client" "$ox" "$data"/*.rk --device "$device" --opt graph_optimization_level=$level
    done
  done
  check "onnxruntime ($runtime): bad level refused" 0 \
    "$ox_client_python" "$client" "$ox" "$data/elementwise.rk" --opt graph_optimization_level=max \
    --expect-failure unsupported
  check "onnxruntime ($runtime): planted accuracy bug is seen" 1 \
    "$ox_client_python" "$client" "$ox" "$data/elementwise.rk" --opt inject_bug_TESTING_ONLY=accuracy
  check "onnxruntime ($runtime): planted compile error" 0 \
    "$ox_client_python" "$client" "$ox" "$data/elementwise.rk" --opt inject_bug_TESTING_ONLY=compile_error \
    --expect-failure compile_error
  if [[ $runtime == node ]]; then
    check "onnxruntime (node): cuda is not declared" 0 \
      "$ox_client_python" "$client" "$ox" "$data/elementwise.rk" --device cuda --expect-failure unsupported
  fi
  unset REPROKIT_ORT_RUNTIME
done

if [[ $failures != 0 ]]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "PASS"
