#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, with .device/ carried
# (made here by tools/build_device_bundle.sh). No Bazel there: the binaries
# are unpacked to /tmp/rk and run directly.
#
#   tools/run_device_gpu.sh tests     # GPU gtests + the CLI on an example
#   tools/run_device_gpu.sh bench     # bench/gpu_bench (add --quick after it for small shapes)
#   tools/run_device_gpu.sh torch     # bench/torch_compare.py (PyTorch 2.11, Inductor)
#   tools/run_device_gpu.sh cold      # cold start: each case's first compile in a fresh
#                                     # process, reprokit (median of 5) then Inductor (1 run;
#                                     # `cold --repeat N` for more)
#   tools/run_device_gpu.sh fuzz [S]  # reprokit fuzz, cpu + cpu-O0 + cuda vs fp64, S seconds (60)
#   tools/run_device_gpu.sh grad [S]  # gradients on CUDA: every example's joint graph judged,
#                                     # a backward-only fault captured and minified, and
#                                     # `fuzz --grad random` on cpu + cuda for S seconds (60)
#   tools/run_device_gpu.sh fxpool ARGS  # bench/fx_minifier_compare.py --device cuda --pool
#                                     # --reprokit /tmp/rk/reprokit ARGS (PyTorch's fx_minifier
#                                     # against reprokit minify on Inductor, a warm pool)
#   tools/run_device_gpu.sh fxe2e SEED [ARGS]  # the same end to end (--e2e): fx_minifier's
#                                     # process against `capture --pool 8` + `minify -j 8`,
#                                     # both cold, N=200,1000, one seed a call (about 5 min);
#                                     # rows add up in /tmp/rk/fx_e2e, the table covers all
#   tools/run_device_gpu.sh minify_j [J...]  # the built-in CPU oracle: relu:accuracy in the
#                                     # N=200/1000 DAGs of fx_minifier_compare.py, `minify -j J`
#                                     # for each J (default 1 4 8), wall time and calls
#   tools/run_device_gpu.sh cuda_oracle [N...]  # capture + minify of relu:accuracy in the
#                                     # N-node DAGs (default 200 1000) with the cpu and the
#                                     # cuda oracle: wall time, calls, time a call
#   tools/run_device_gpu.sh latency [ARGS]  # bench/cli_compile_latency.py --device cuda ARGS:
#                                     # `compile --device=cuda` cold and warm in fresh processes
#                                     # (chain_1000, attention, the chain uncapped), the phases
#                                     # (context included), then `check` of the chain capped and not
#   tools/run_device_gpu.sh campaigns [S] [NAMES]  # fuzz campaigns of S seconds (600) started
#                                     # in sessions of their own (setsid), so they outlive the
#                                     # call: inductor (torch_inductor@cuda -j 6), xla
#                                     # (jax_xla@cuda -j 4), gpu (cpu + cpu-O0 + cuda vs fp64,
#                                     # -j 4); NAMES picks some (comma-separated)
#   tools/run_device_gpu.sh collect [S]  # waits up to S seconds (600) for those campaigns to end,
#                                     # then brings back each one's summary.md and the archive
#   tools/run_device_gpu.sh all [S]   # tests, bench (+ JIT -O1 and driver-cache reruns), torch,
#                                     # cold, then fuzz for S seconds (0: no fuzz)
# Logs and results go to /tmp/rk/out; when $OUT is set (the device tool
# brings back at most 8 files) everything is also packed into
# $OUT/results.tar.gz, with the main text results beside it.
set -uo pipefail
cd "$(dirname "$0")/.."

what="${1:-all}"
shift || true
out=/tmp/rk/out
mkdir -p /tmp/rk "$out"

unpack() {
  if [[ ! -d .device ]]; then
    echo "run_device_gpu: .device/ is missing: build it with tools/build_device_bundle.sh and carry it" >&2
    exit 2
  fi
  for f in .device/*.xz; do
    name="$(basename "$f" .xz)"
    [[ -x "/tmp/rk/$name" ]] || { xz -dc "$f" > "/tmp/rk/$name" && chmod +x "/tmp/rk/$name"; }
  done
  cp .device/libdevice.10.bc /tmp/rk/
  export REPROKIT_LIBDEVICE=/tmp/rk/libdevice.10.bc
  # This checkout: backends/ (the Inductor adapter) and a WORKSPACE to emit into.
  export REPROKIT_ROOT="$PWD"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader || true
  cat .device/COMMIT 2>/dev/null || true
}

run_tests() {
  /tmp/rk/cuda_program_test --gtest_output="xml:$out/cuda_program_test.xml" > "$out/cuda_program_test.log" 2>&1
  local status=$?
  /tmp/rk/cuda_two_pass_test --gtest_output="xml:$out/cuda_two_pass_test.xml" >> "$out/cuda_program_test.log" 2>&1 || status=1
  grep -E '^\[ *(OK|FAILED|SKIPPED|PASSED) *\]|Failure|error|rmse' "$out/cuda_program_test.log" | head -80
  echo "--- reprokit compile --device=cuda examples/softmax.rk"
  mkdir -p /tmp/rk/dump
  if [[ -f examples/softmax.rk ]]; then
    /tmp/rk/reprokit compile examples/softmax.rk --device=cuda --dump /tmp/rk/dump || status=1
    tar -C /tmp/rk -czf "$out/dump.tar.gz" dump
  fi
  return $status
}

run_bench() {
  /tmp/rk/gpu_bench --json "$out/gpu_bench.json" "$@" 2>&1 | tee "$out/gpu_bench.txt"
  return "${PIPESTATUS[0]}"
}

run_torch() {
  PYTHONUNBUFFERED=1 python3 bench/torch_compare.py --json "$out/torch_compare.json" "$@" 2>&1 |
    tee "$out/torch_compare.txt"
  return "${PIPESTATUS[0]}"
}

run_cold() {
  echo "--- reprokit: gpu_bench --cold-start --repeat 5"
  /tmp/rk/gpu_bench --cold-start --repeat 5 --json "$out/cold_start.json" "$@" 2>&1 |
    tee "$out/cold_start.txt"
  local a=${PIPESTATUS[0]}
  echo "--- Inductor: torch_compare.py --cold-start"
  PYTHONUNBUFFERED=1 python3 bench/torch_compare.py --cold-start \
    --json "$out/torch_cold_start.json" "$@" 2>&1 | tee "$out/torch_cold_start.txt"
  local b=${PIPESTATUS[0]}
  return $((a | b))
}

run_fuzz() {
  local seconds="${1:-60}"
  local dir=/tmp/rk/fuzz_gpu
  /tmp/rk/reprokit fuzz --time "${seconds}s" -j 8 --out "$dir" --no-emit --quiet \
    --minimize-time 10 > "$out/fuzz.log" 2>&1
  local status=$?
  echo "--- reprokit fuzz exit $status"
  cp "$dir/summary.md" "$dir/summary.json" "$out/" 2>/dev/null || true
  cat "$dir/summary.md" 2>/dev/null | head -60
  tar -C /tmp/rk -czf "$out/fuzz_gpu.tar.gz" fuzz_gpu 2>/dev/null || true
  # 1 means new findings, which is a result, not a broken run.
  [[ $status -le 1 ]]
}

run_grad() {
  local seconds="${1:-60}" status=0 g
  for g in examples/*.rk; do
    echo "--- reprokit check $g --grad all-float --device cuda"
    /tmp/rk/reprokit check "$g" --grad all-float --device cuda > "$out/grad_check.txt" 2>&1
    local rc=$?
    grep -E "^verdict|^signature|grad\(" "$out/grad_check.txt" | head -8
    [[ $rc == 0 ]] || { status=1; tail -5 "$out/grad_check.txt"; }
  done
  echo "--- a backward-only fault on cuda: capture, minify"
  /tmp/rk/reprokit capture examples/mlp_train.rk --device cuda \
    --opt faults=vjp:matmul:reshape_transpose -o /tmp/rk/grad_bug || status=1
  /tmp/rk/reprokit minify /tmp/rk/grad_bug -o /tmp/rk/grad_bug.min || status=1
  cat /tmp/rk/grad_bug.min/graph.rk
  local dir=/tmp/rk/fuzz_grad
  /tmp/rk/reprokit fuzz --time "${seconds}s" -j 8 --grad random --no-o0 --out "$dir" --no-emit \
    --quiet --minimize-time 10 > "$out/fuzz_grad.log" 2>&1
  local f=$?
  echo "--- reprokit fuzz --grad random exit $f"
  cp "$dir/summary.md" "$out/summary_grad.md" 2>/dev/null || true
  head -40 "$dir/summary.md" 2>/dev/null
  [[ $f -le 1 ]] || status=1
  return $status
}

run_fxpool() {
  PYTHONUNBUFFERED=1 python3 bench/fx_minifier_compare.py --device cuda --pool \
    --reprokit /tmp/rk/reprokit --out /tmp/rk/fx "$@" 2>&1 | tee "$out/fx_minifier_compare.txt"
  local status=${PIPESTATUS[0]}
  cp /tmp/rk/fx/fx_minifier_compare.md "$out/" 2>/dev/null || true
  return "$status"
}

run_fxe2e() {
  local seed="${1:-1}"
  shift || true
  PYTHONUNBUFFERED=1 python3 bench/fx_minifier_compare.py --device cuda --e2e --jobs 8 \
    --sizes 200,1000 --seeds "$seed" --reprokit /tmp/rk/reprokit --out /tmp/rk/fx_e2e "$@" \
    2>&1 | tee -a "$out/fx_e2e.txt"
  local status=${PIPESTATUS[0]}
  cp /tmp/rk/fx_e2e/fx_minifier_compare.md "$out/fx_e2e.md" 2>/dev/null || true
  return "$status"
}

run_minify_j() {
  local jobs=("$@") status=0 n j
  (( ${#jobs[@]} )) || jobs=(1 4 8)
  python3 bench/fx_minifier_compare.py --dry --sizes 200,1000 --seeds 1 --out /tmp/rk/dags \
    > /dev/null || return 1
  for n in 200 1000; do
    rm -rf "/tmp/rk/j_bug$n"
    /tmp/rk/reprokit capture "/tmp/rk/dags/N${n}_s1.rk" --opt faults=relu:accuracy \
      -o "/tmp/rk/j_bug$n" > /dev/null || { status=1; continue; }
    for j in "${jobs[@]}"; do
      rm -rf "/tmp/rk/j_min$n"
      local t0; t0=$(date +%s.%N)
      /tmp/rk/reprokit minify "/tmp/rk/j_bug$n" -o "/tmp/rk/j_min$n" -j "$j" --json \
        > "$out/minify_j.json" 2>/dev/null || status=1
      local t1; t1=$(date +%s.%N)
      python3 - "$n" "$j" "$t0" "$t1" "$out/minify_j.json" <<'PY'
import json, sys
n, j, t0, t1, path = sys.argv[1:]
text = open(path).read()
d = json.loads(text[text.index("{"):])
print("minify_j N=%s -j %s: %.2f s wall, %s calls issued, %s used, final %s nodes" % (
    n, j, float(t1) - float(t0), d.get("oracle_calls"), d.get("oracle_calls_used"),
    d.get("final", {}).get("compute_nodes")))
PY
    done
  done
  return $status
}

# The CUDA oracle on graphs of many outputs (issue #21 item 0b): the random
# DAGs of fx_minifier_compare.py with a planted relu, captured and minified
# with the built-in oracle on cpu and on cuda; `check` and `compile --timings`
# show where one judgement's time goes.
run_cuda_oracle() {
  local sizes=("$@") status=0 n dev
  (( ${#sizes[@]} )) || sizes=(200 1000)
  python3 bench/fx_minifier_compare.py --dry --sizes "$(IFS=,; echo "${sizes[*]}")" --seeds 1 \
    --out /tmp/rk/dags > /dev/null || return 1
  for n in "${sizes[@]}"; do
    local g="/tmp/rk/dags/N${n}_s1.rk"
    echo "--- N=$n: compile --device=cuda --timings"
    /tmp/rk/reprokit compile "$g" --device=cuda --timings 2>&1 | tail -25
    for dev in cpu cuda; do
      echo "--- N=$n device $dev: check (fault-free), capture, minify"
      /tmp/rk/reprokit check "$g" --device "$dev" 2>&1 | tail -2
      rm -rf "/tmp/rk/c_bug$n$dev" "/tmp/rk/c_min$n$dev"
      local t0 t1 t2
      t0=$(date +%s.%N)
      /tmp/rk/reprokit capture "$g" --device "$dev" --opt faults=relu:accuracy \
        -o "/tmp/rk/c_bug$n$dev" 2>&1 | head -3 || status=1
      t1=$(date +%s.%N)
      /tmp/rk/reprokit minify "/tmp/rk/c_bug$n$dev" -o "/tmp/rk/c_min$n$dev" --json \
        > "$out/cuda_oracle.json" 2>/dev/null || status=1
      t2=$(date +%s.%N)
      python3 - "$n" "$dev" "$t0" "$t1" "$t2" "$out/cuda_oracle.json" <<'PY'
import json, sys
n, dev, t0, t1, t2, path = sys.argv[1:]
text = open(path).read()
try:
    d = json.loads(text[text.index("{"):])
except ValueError:
    d = {}
calls = d.get("oracle_calls") or 0
mt = float(t2) - float(t1)
print("cuda_oracle N=%s %s: capture %.2f s, minify %.2f s, %s calls (%.3f s a call), final %s nodes, %s" % (
    n, dev, float(t1) - float(t0), mt, calls, mt / calls if calls else 0,
    d.get("final", {}).get("compute_nodes"), d.get("signature")))
PY
    done
  done
  return $status
}

# Campaigns against the real compilers on the GPU (docs/FOUND_BUGS.md): each
# runs under setsid so that a call can start them and a later call collect
# them (the device tool ends a call's other processes when it returns).
campaign_flags() {
  case "$1" in
    inductor) echo "--backends torch_inductor@cuda -j 6 --nodes 16 --seed 7" ;;
    xla) echo "--backends jax_xla@cuda -j 4 --nodes 16 --seed 7" ;;
    gpu) echo "-j 4 --seed 11" ;;
    ort16) echo "--backends onnxruntime -j 16 --nodes 16 --seed 7" ;;
    *) return 1 ;;
  esac
}

run_campaigns() {
  local seconds="${1:-600}" names="${2:-inductor,xla,gpu}" name flags
  mkdir -p /tmp/rk/camp
  for name in ${names//,/ }; do
    flags="$(campaign_flags "$name")" || { echo "unknown campaign $name" >&2; return 2; }
    rm -rf "/tmp/rk/camp/$name"
    # shellcheck disable=SC2086
    setsid nohup /tmp/rk/reprokit fuzz $flags --time "${seconds}s" --out "/tmp/rk/camp/$name" \
      --no-emit --quiet --minimize-time 60 > "/tmp/rk/camp/$name.log" 2>&1 < /dev/null &
    echo "started campaign $name: reprokit fuzz $flags --time ${seconds}s (pid $!)"
  done
  date -u +%s > /tmp/rk/camp/started
}

run_collect() {
  local limit="${1:-600}" waited=0 name
  while pgrep -f "reprokit fuzz" > /dev/null && (( waited < limit )); do
    sleep 5
    waited=$((waited + 5))
  done
  pgrep -f "reprokit fuzz" > /dev/null && echo "campaigns still running after ${limit}s"
  for name in /tmp/rk/camp/*/; do
    name="$(basename "$name")"
    echo "=== campaign $name"
    tail -3 "/tmp/rk/camp/$name.log"
    head -80 "/tmp/rk/camp/$name/summary.md" 2>/dev/null
    cp "/tmp/rk/camp/$name/summary.md" "$out/summary_$name.md" 2>/dev/null
    cp "/tmp/rk/camp/$name/summary.json" "$out/summary_$name.json" 2>/dev/null
    cp "/tmp/rk/camp/$name.log" "$out/" 2>/dev/null
  done
  tar -C /tmp/rk -czf "$out/campaigns.tar.gz" camp 2>/dev/null
  if [[ -n "${OUT:-}" ]]; then
    cp "$out/campaigns.tar.gz" "$OUT/"
    for name in "$out"/summary_*.md; do [[ -f "$name" ]] && cp "$name" "$OUT/"; done
  fi
  return 0
}

pack() {
  [[ -n "${OUT:-}" ]] || return 0
  tar -C /tmp/rk -czf "$OUT/results.tar.gz" out
  local name
  # At most 7 beside the archive (the device tool brings back 8 files; one run
  # mode writes only a few of these); the -O1 and rerun variants of gpu_bench
  # are in the archive only.
  for name in cuda_program_test.log gpu_bench.txt torch_compare.txt cold_start.txt \
              torch_cold_start.txt summary.md summary_grad.md fx_minifier_compare.txt; do
    [[ -f "$out/$name" ]] && cp "$out/$name" "$OUT/"
  done
  return 0
}

# The compile-latency variants: the driver's JIT at -O1, and a second
# process with the driver's on-disk JIT cache warm from the first.
run_bench_variants() {
  echo "--- gpu_bench with REPROKIT_CUDA_JIT_O=1"
  REPROKIT_CUDA_JIT_O=1 /tmp/rk/gpu_bench --json "$out/gpu_bench_jit_o1.json" > "$out/gpu_bench_jit_o1.txt" 2>&1
  local a=$?
  tail -16 "$out/gpu_bench_jit_o1.txt"
  echo "--- gpu_bench again (driver JIT cache warm)"
  /tmp/rk/gpu_bench --json "$out/gpu_bench_rerun.json" > "$out/gpu_bench_rerun.txt" 2>&1
  local b=$?
  tail -16 "$out/gpu_bench_rerun.txt"
  return $((a | b))
}

case "$what" in
  tests) unpack; run_tests; s=$?; pack; exit $s ;;
  bench) unpack; run_bench "$@"; s=$?; pack; exit $s ;;
  torch) run_torch "$@"; s=$?; pack; exit $s ;;
  cold) unpack; run_cold "$@"; s=$?; pack; exit $s ;;
  fuzz) unpack; run_fuzz "$@"; s=$?; pack; exit $s ;;
  grad) unpack; run_grad "$@"; s=$?; pack; exit $s ;;
  fxpool) unpack; run_fxpool "$@"; s=$?; pack; exit $s ;;
  fxe2e) unpack; run_fxe2e "$@"; s=$?; pack; exit $s ;;
  minify_j) unpack; run_minify_j "$@"; s=$?; pack; exit $s ;;
  cuda_oracle) unpack; run_cuda_oracle "$@"; s=$?; pack; exit $s ;;
  latency)
    unpack
    python3 bench/cli_compile_latency.py /tmp/rk/reprokit --device cuda "$@" 2>&1 |
      tee "$out/compile_latency.txt"
    s=${PIPESTATUS[0]}; [[ -n "${OUT:-}" ]] && cp "$out/compile_latency.txt" "$OUT/"; exit $s ;;
  campaigns) unpack; run_campaigns "$@"; exit $? ;;
  collect) run_collect "$@"; exit $? ;;
  all)
    unpack
    # Packed after each step: a call cut off at its limit still brings back
    # what finished.
    run_tests; t=$?; pack
    run_bench; b=$?; pack
    run_bench_variants || b=1; pack
    run_torch; p=$?; pack
    run_cold || p=1; pack
    f=0
    if [[ "${1:-0}" != 0 ]]; then run_fuzz "$1"; f=$?; pack; fi
    echo "=== tests exit $t, bench exit $b, torch exit $p, fuzz exit $f"
    exit $((t | b | p | f)) ;;
  *) echo "usage: tools/run_device_gpu.sh tests|bench|torch|cold|fuzz|grad|fxpool|minify_j|cuda_oracle|latency|campaigns|collect|all [args]" >&2; exit 2 ;;
esac
