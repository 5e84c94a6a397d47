#!/usr/bin/env bash
# The jax_xla adapter on the GPU machine (jax with CUDA), end to end, in one run:
#   1. adapter   the protocol rows of adapter_checks.sh on cpu and cuda (cuda must be seen)
#   2. check     `reprokit check` of the backends/testdata graphs with --backend jax_xla,
#                on cuda and cpu: every one must pass
#   3. minify    the adapter's planted relu fault captured on cuda from a 16-node graph
#                and minified: one relu must remain
#   4. triage    the minified bundle: an optimizer bug (jit=false passes), exit 1
#   5. standalone `reprokit export --standalone`: repro.py (jax + numpy only) exits 1
#                with the fault, 0 once expected.json drops it, 0 for a passing bundle
#   6. fuzz      `reprokit fuzz --backends jax_xla@cuda` for $FUZZ_SECONDS (default 60):
#                graphs judged, not applicable, findings (findings are results, not failures)
# Prints a summary table; exits 1 when any step failed, 2 when it cannot start.
# Steps 1-5 should take a few minutes (not yet measured), step 6 FUZZ_SECONDS plus
# minimizing; where one command may run 10 minutes, run them apart:
#   ... gpu_check.sh adapter check minify triage standalone
#   ... gpu_check.sh fuzz
#
# Run from the repository root:
#   REPROKIT=.zoo/dev/reprokit REPROKIT_ROOT=$PWD bash backends/jax_xla/gpu_check.sh [STEP...]
# PYTHON: the interpreter with jax (default /opt/torch/.venv/bin/python3, else python3).
# Logs: $OUT/jax_xla_check/ when $OUT is set, else /tmp/jax_xla_check/.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root="$PWD"
export REPROKIT_ROOT="${REPROKIT_ROOT:-$root}"
export REPROKIT_BACKEND_POOL=off
rk="${REPROKIT:-$root/.zoo/dev/reprokit}"
py="${PYTHON:-/opt/torch/.venv/bin/python3}"
[[ -x "$py" ]] || py="$(command -v python3)"
export PATH="$(dirname "$py"):$PATH"  # the adapter and repro.py run as python3
fuzz_seconds="${FUZZ_SECONDS:-60}"
logs="${OUT:+$OUT/jax_xla_check}"
logs="${logs:-/tmp/jax_xla_check}"
rm -rf "$logs" && mkdir -p "$logs"
work="$(mktemp -d /tmp/jax_xla_check.XXXXXX)"
steps=("$@")
[[ ${#steps[@]} == 0 ]] && steps=(adapter check minify triage standalone fuzz)

if [[ ! -x "$rk" ]]; then
  echo "gpu_check: no reprokit binary at $rk (set REPROKIT)" >&2
  exit 2
fi
if ! "$py" -c 'import jax, numpy' 2>/dev/null; then
  echo "gpu_check: $py cannot import jax (set PYTHON)" >&2
  exit 2
fi
echo "== environment"
nvidia-smi -L 2>/dev/null || echo "(no nvidia-smi)"
"$py" -c 'import sys, jax, numpy; print("python", sys.version.split()[0], "| jax", jax.__version__,
"| numpy", numpy.__version__); print("jax devices:", jax.devices())' 2>&1 | grep -v "^WARNING"
"$rk" version 2>/dev/null | head -3

summary=()
failed=0
# record NAME STATUS SECONDS DETAIL
record() {
  summary+=("$(printf '%-11s %-5s %6ss  %s' "$1" "$2" "$3" "$4")")
  [[ $2 == PASS ]] || failed=$((failed + 1))
}
# run LOG WANT_EXIT PATTERN CMD...: CMD (timeout 540 s) exits WANT_EXIT and its
# output matches PATTERN (ERE); prints the output; returns 0 when both hold.
run() {
  local log="$logs/$1" want="$2" pattern="$3"
  shift 3
  echo "--- $*"
  timeout 540 "$@" >"$log" 2>&1
  local got=$?
  cat "$log"
  if [[ $got != "$want" ]]; then
    echo "!!! exit $got, expected $want"
    return 1
  fi
  if ! grep -Eq -- "$pattern" "$log"; then
    echo "!!! output does not match /$pattern/"
    return 1
  fi
  return 0
}
now() { date +%s; }

step_adapter() {
  local t0 ok=PASS
  t0=$(now)
  echo "== 1. adapter rows (backends/jax_xla/adapter_checks.sh)"
  run adapter.log 0 'jax_xla: PASS' env PYTHON="$py" bash backends/jax_xla/adapter_checks.sh || ok=FAIL
  grep -q 'jax_xla: devices cpu cuda' "$logs/adapter.log" || { echo "!!! jax sees no cuda"; ok=FAIL; }
  record adapter "$ok" $(($(now) - t0)) "$(grep -c '^--- ' "$logs/adapter.log") rows, $(grep -c '^FAIL' "$logs/adapter.log") failed"
}

step_check() {
  local t0 ok=PASS passed=0 total=0 device g
  t0=$(now)
  echo "== 2. reprokit check --backend jax_xla"
  for device in cuda cpu; do
    for g in backends/testdata/*.rk; do
      total=$((total + 1))
      if run "check_${device}_$(basename "$g" .rk).log" 0 'pass' \
        "$rk" check "$g" --backend jax_xla --device "$device"; then
        passed=$((passed + 1))
      else
        ok=FAIL
      fi
    done
  done
  record check "$ok" $(($(now) - t0)) "$passed of $total graphs pass (cuda, cpu)"
}

# A 16-node graph with one relu in the middle, for the minifier. The relu is
# an output too: an external backend's failure is named after the failing
# output nearest the inputs (repro/oracle/failure_site.h), here the relu.
write_chain() {
  cat >"$work/chain.rk" <<'G'
graph @chain(%x: f32[8,32], %y: f32[32], %z: f32[8,32]) {
  %a = add(%x, %y) : f32[8,32]
  %b = mul(%a, %z) : f32[8,32]
  %c = tanh(%b) : f32[8,32]
  %d = sub(%c, %x) : f32[8,32]
  %e = exp(%d) : f32[8,32]
  %f = mul(%e, %y) : f32[8,32]
  %g = add(%f, %z) : f32[8,32]
  %h = relu(%g) : f32[8,32]
  %i = mul(%h, %x) : f32[8,32]
  %j = sigmoid(%i) : f32[8,32]
  %k = add(%j, %c) : f32[8,32]
  %l = sub(%k, %y) : f32[8,32]
  %m = mul(%l, %l) : f32[8,32]
  %n = reduce_sum(%m) {axes=[1], keepdim=false} : f32[8]
  %o = neg(%n) : f32[8]
  %p = sqrt(%m) : f32[8,32]
  return %o, %p, %h
}
G
}

step_minify() {
  local t0 ok=PASS nodes
  t0=$(now)
  echo "== 3. capture + minify the planted fault on cuda"
  write_chain
  rm -rf "$work/bug" "$work/bug.min"
  run capture.log 0 'accuracy' "$rk" capture "$work/chain.rk" --backend jax_xla --device cuda \
    --opt inject_relu_bug_TESTING_ONLY=accuracy -o "$work/bug" || ok=FAIL
  run minify.log 0 'accuracy' "$rk" minify "$work/bug" -o "$work/bug.min" || ok=FAIL
  echo "--- minified graph"
  cat "$work/bug.min/graph.rk" 2>/dev/null
  nodes=$(grep -Ec '^ *%[^ ]+ = ' "$work/bug.min/graph.rk" 2>/dev/null)
  if [[ "$nodes" != 1 ]] || ! grep -q '= relu(' "$work/bug.min/graph.rk"; then
    echo "!!! the minified graph is not the single relu ($nodes nodes)"
    ok=FAIL
  fi
  record minify "$ok" $(($(now) - t0)) "16 -> ${nodes:-?} nodes"
}

step_triage() {
  local t0 ok=PASS
  t0=$(now)
  echo "== 4. reprokit triage of the minified bundle"
  [[ -d "$work/bug.min" ]] || step_minify >/dev/null
  run triage.log 1 'class: +optimizer bug' "$rk" triage "$work/bug.min" || ok=FAIL
  grep -Eq 'jit=false +pass' "$logs/triage.log" || { echo "!!! jit=false is not a passing row"; ok=FAIL; }
  record triage "$ok" $(($(now) - t0)) "$(grep -E '^(class|because):' "$logs/triage.log" | tr -s ' ' | paste -sd ';' -)"
}

step_standalone() {
  local t0 ok=PASS
  t0=$(now)
  echo "== 5. standalone repro.py (jax + numpy only)"
  [[ -d "$work/bug.min" ]] || step_minify >/dev/null
  rm -rf "$work/sa" "$work/ok" "$work/ok.sa"
  run export.log 0 'repro\.py' "$rk" export "$work/bug.min" --standalone "$work/sa" || ok=FAIL
  run repro_fault.log 1 'reproduces' "$py" "$work/sa/repro.py" || ok=FAIL
  "$py" - "$work/sa/expected.json" <<'EOF_PY' || ok=FAIL
import json, sys
spec = json.load(open(sys.argv[1]))
print("expected.json options:", spec["options"], "-> without the planted fault")
spec["options"].pop("inject_relu_bug_TESTING_ONLY")
json.dump(spec, open(sys.argv[1], "w"), indent=2)
EOF_PY
  run repro_nofault.log 0 'does not reproduce' "$py" "$work/sa/repro.py" || ok=FAIL
  run capture_ok.log 0 'pass' "$rk" capture backends/testdata/mlp.rk --backend jax_xla \
    --device cuda -o "$work/ok" || ok=FAIL
  run export_ok.log 0 'repro\.py' "$rk" export "$work/ok" --standalone "$work/ok.sa" || ok=FAIL
  run repro_ok.log 0 'does not reproduce' "$py" "$work/ok.sa/repro.py" || ok=FAIL
  record standalone "$ok" $(($(now) - t0)) "repro.py: fault exit 1, no fault 0, passing bundle 0 (wanted)"
}

step_fuzz() {
  local t0 ok=PASS
  t0=$(now)
  echo "== 6. reprokit fuzz --backends jax_xla@cuda --time ${fuzz_seconds}s"
  rm -rf "$work/fuzz"
  timeout $((fuzz_seconds + 240)) "$rk" fuzz --backends jax_xla@cuda --time "${fuzz_seconds}s" \
    -j 4 --out "$work/fuzz" --no-emit --quiet --minimize-time 10 >"$logs/fuzz.log" 2>&1
  local got=$?
  cat "$logs/fuzz.log" | tail -20
  echo "--- summary.md"
  head -80 "$work/fuzz/summary.md" 2>/dev/null
  cp "$work/fuzz/summary.md" "$work/fuzz/summary.json" "$logs/" 2>/dev/null
  [[ $got -le 1 ]] || { echo "!!! fuzz exit $got"; ok=FAIL; }
  record fuzz "$ok" $(($(now) - t0)) "exit $got (1: findings, see fuzz summary.md)"
}

for s in "${steps[@]}"; do
  case "$s" in
    adapter | check | minify | triage | standalone | fuzz) "step_$s" ;;
    *) echo "gpu_check: unknown step $s (adapter check minify triage standalone fuzz)" >&2
       exit 2 ;;
  esac
done
tar -C "$work" -czf "$logs/work.tar.gz" . 2>/dev/null

echo
echo "== jax_xla GPU check summary (logs: $logs)"
printf '%s\n' "${summary[@]}"
if [[ $failed != 0 ]]; then
  echo "FAIL: $failed step(s) failed"
  exit 1
fi
echo "PASS: every step passed"
