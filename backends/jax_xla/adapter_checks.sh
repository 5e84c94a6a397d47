#!/usr/bin/env bash
# The jax_xla adapter through the protocol (backends/python/backend_client.py):
# every graph of backends/testdata/ on cpu and, where jax sees one, cuda, with
# jax.jit and op by op (jit=false), against a NumPy float64 evaluation; the
# adapter's planted fault seen in compiled code only; a planted compile error;
# unknown options and bad values refused; an XLA option taken. Where jax cannot
# be imported (CI) it prints why and passes. Run by backends/adapters_test.sh
# and backends/jax_xla/gpu_check.sh. PYTHON: the interpreter with jax.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python="${PYTHON:-python3}"
client="$here/../python/backend_client.py"
data="$here/../testdata"
jx="$here/serve"
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

if ! (cd / && "$python" -c 'import jax, numpy') 2>/dev/null; then
  echo "skipped: jax not installed (jax_xla adapter)"
  exit 0
fi
# The adapter runs as `python3` from PATH: the interpreter with jax first.
export PATH="$(cd / && "$python" -c 'import os, sys; print(os.path.dirname(sys.executable))'):$PATH"

devices=(cpu)
if (cd / && "$python" -c 'import jax, sys; sys.exit(0 if jax.devices("cuda") else 1)') 2>/dev/null; then
  devices+=(cuda)
fi
echo "jax_xla: devices ${devices[*]}"

for device in "${devices[@]}"; do
  for jit in true false; do
    check "jax_xla $device, jit=$jit: every test graph" 0 \
      "$python" "$client" "$jx" "$data"/*.rk --device "$device" --opt jit=$jit
  done
  check "jax_xla $device: planted accuracy bug is seen" 1 \
    "$python" "$client" "$jx" "$data/elementwise.rk" --device "$device" \
    --opt inject_relu_bug_TESTING_ONLY=accuracy
  check "jax_xla $device: the planted bug is in compiled code only (jit=false passes)" 0 \
    "$python" "$client" "$jx" "$data/elementwise.rk" --device "$device" \
    --opt inject_relu_bug_TESTING_ONLY=accuracy --opt jit=false
done
check "jax_xla cpu: planted compile error" 0 \
  "$python" "$client" "$jx" "$data/elementwise.rk" \
  --opt inject_relu_bug_TESTING_ONLY=compile_error --expect-failure compile_error
check "jax_xla: unknown option refused" 0 \
  "$python" "$client" "$jx" "$data/elementwise.rk" --opt no.such_key=1 --expect-failure unsupported
check "jax_xla: bad jit value refused" 0 \
  "$python" "$client" "$jx" "$data/elementwise.rk" --opt jit=maybe --expect-failure unsupported
check "jax_xla: every test graph at XLA backend optimization level 0" 0 \
  "$python" "$client" "$jx" "$data"/*.rk --opt xla_backend_optimization_level=0
if [[ " ${devices[*]} " != *" cuda "* ]]; then
  check "jax_xla: cuda is refused where jax has no GPU" 0 \
    "$python" "$client" "$jx" "$data/elementwise.rk" --device cuda --expect-failure unsupported
fi

if [[ $failures != 0 ]]; then
  echo "jax_xla: $failures check(s) failed"
  exit 1
fi
echo "jax_xla: PASS"
