#!/usr/bin/env bash
# Training graphs through the real CLI (docs/WORKFLOWS.md, "Training graphs"):
# --grad on check, capture and bisect; a backward-only planted fault captured,
# minimized to the forward op whose gradient is wrong, replayed by check; a fuzz
# campaign with --grad finds it; bad --grad values are exit 2.
set -u
bin="$TEST_SRCDIR/reprokit/tools/reprokit"
example="$TEST_SRCDIR/reprokit/examples/mlp_train.rk"
T="${TEST_TMPDIR:-$(mktemp -d)}"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
expect() {  # expect CODE DESCRIPTION -- command...
  local want=$1 what=$2; shift 3
  "$@" >"$T/out" 2>"$T/err"; local got=$?
  if [[ $got != "$want" ]]; then
    fail "$what: exit $got, want $want"; cat "$T/out" "$T/err"
  else
    echo "ok: $what"
  fi
}

cat > "$T/block.rk" <<'GRAPH'
graph @block(%x: f32[2,3,4], %w: f32[3,4,2], %b: f32[3,4,2], %i: i32[3,4,2]) {
  %s = sigmoid(%x) : f32[2,3,4]
  %t = transpose(%s) {perm=[1,2,0]} : f32[3,4,2]
  %m = mul(%t, %w) : f32[3,4,2]
  %a = add(%m, %b) : f32[3,4,2]
  %n = neg(%a) : f32[3,4,2]
  %e = tanh(%n) : f32[3,4,2]
  %c = cast(%i) {dtype=f32} : f32[3,4,2]
  %y = add(%e, %c) : f32[3,4,2]
  return %y
}
GRAPH

echo "== check: gradients judged, each named"
expect 0 "check --grad x,w (no fault)" -- "$bin" check "$T/block.rk" --grad x,w
grep -q "grad(%x)" "$T/out" && grep -q "grad(%w)" "$T/out" || { fail "no gradient rows"; cat "$T/out"; }
expect 0 "a graph's own grad marks (mlp_train.rk)" -- "$bin" check "$example"
[[ "$(grep -c 'grad(%' "$T/out")" == 4 ]] || { fail "mlp_train: want 4 gradient rows"; cat "$T/out"; }
expect 1 "backward-only fault fails the gradient" -- \
  "$bin" check "$T/block.rk" --grad x --opt faults=vjp:transpose:wrong_perm
grep -q "signature: accuracy:miscompile:grad:transpose:f32" "$T/out" || { fail "signature"; cat "$T/out"; }
expect 0 "the same fault without --grad is not judged" -- \
  "$bin" check "$T/block.rk" --opt faults=vjp:transpose:wrong_perm
expect 0 "--grad none clears a graph's marks" -- \
  "$bin" check "$example" --grad none --opt faults=vjp:matmul:reshape_transpose
expect 1 "mlp_train with vjp:matmul:reshape_transpose" -- \
  "$bin" check "$example" --opt faults=vjp:matmul:reshape_transpose --json
grep -q '"signature": "accuracy:miscompile:grad:matmul:f32"' "$T/out" || { fail "json signature"; cat "$T/out"; }
grep -q '"gradient_of": "w1"' "$T/out" || { fail "json gradient_of"; cat "$T/out"; }

echo "== show --joint: the joint graph is an ordinary graph"
expect 0 "show --joint" -- "$bin" show --joint "$T/block.rk" --grad x
cp "$T/out" "$T/joint.rk"
grep -q "seed.0" "$T/joint.rk" || { fail "no seed input"; cat "$T/joint.rk"; }
grep -q " grad" "$T/joint.rk" && { fail "the joint graph keeps grad marks"; cat "$T/joint.rk"; }
expect 0 "check of the joint graph" -- "$bin" check "$T/joint.rk"
expect 2 "show --joint without marks" -- "$bin" show --joint "$T/block.rk"

echo "== bad --grad"
expect 2 "--grad of an unknown input" -- "$bin" check "$T/block.rk" --grad x,nosuch
grep -q "nosuch" "$T/err" || { fail "unclear error"; cat "$T/err"; }
expect 2 "--grad of an integer input" -- "$bin" check "$T/block.rk" --grad i
grep -q "only float inputs have gradients" "$T/err" || { fail "unclear error"; cat "$T/err"; }
expect 2 "fuzz --grad bogus" -- "$bin" fuzz --out "$T/f0" --iterations 1 --grad bogus

echo "== capture -> minify -> run"
expect 0 "capture" -- "$bin" capture "$T/block.rk" --grad x,w --opt faults=vjp:transpose:wrong_perm \
  -o "$T/bug"
grep -q "captured accuracy (accuracy:miscompile:grad:transpose:f32)" "$T/out" \
  || { fail "capture output"; cat "$T/out"; }
grep -q "%x: f32\[2,3,4\] grad" "$T/bug/graph.rk" || { fail "marks not in graph.rk"; cat "$T/bug/graph.rk"; }
expect 0 "minify" -- "$bin" minify "$T/bug" -o "$T/bug.min" --json
grep -q '"signature": "accuracy:miscompile:grad:transpose:f32"' "$T/out" || { fail "minify signature"; cat "$T/out"; }
computed="$(grep -c ' = ' "$T/bug.min/graph.rk")"
[[ "$computed" == 1 ]] && grep -q "transpose(" "$T/bug.min/graph.rk" && grep -q " grad" "$T/bug.min/graph.rk" \
  || { fail "minimized graph is not the one marked transpose"; cat "$T/bug.min/graph.rk"; }
expect 0 "run replays the minimized bundle, gradients too" -- "$bin" run "$T/bug.min"
grep -q "out1 grad(%" "$T/out" || { fail "run prints no gradient"; cat "$T/out"; }
expect 1 "check replays it" -- "$bin" check "$T/bug.min"
grep -q "expected:  accuracy:miscompile:grad:transpose:f32 (reproduced)" "$T/out" || { fail "check bundle"; cat "$T/out"; }
expect 0 "check of it without the fault" -- "$bin" check "$T/bug.min" --opt faults=

echo "== bisect --options finds the vjp fault"
expect 0 "bisect --options" -- "$bin" bisect "$T/bug.min" --options --good-opt faults=
grep -q "minimal failing difference (1 of 1): faults+=vjp:transpose:wrong_perm" "$T/out" \
  || { fail "bisect does not name the fault"; cat "$T/out" "$T/err"; }

echo "== bisect --passes counts the joint graph's pass applications"
expect 0 "capture a fusion fault in a graph with gradients" -- \
  "$bin" capture "$example" --opt faults=fuse:wrong_index -o "$T/fused"
expect 0 "bisect --passes" -- "$bin" bisect "$T/fused" --passes --dump-dir "$T/fused.bisect"
grep -q "first bad: pass 'fuse' application" "$T/out" || { fail "bisect --passes"; cat "$T/out" "$T/err"; }

echo "== fuzz --grad random"
expect 1 "fuzz finds the backward-only fault" -- "$bin" fuzz --out "$T/fz" --iterations 40 --seed 3 \
  --nodes 8 --grad random --fault vjp:mul:swap_operands --no-o0 --no-gpu --no-emit --quiet \
  --minimize-time 30
grep -q "grad:mul" "$T/fz/summary.json" || { fail "no grad:mul finding"; cat "$T/out"; head -c 3000 "$T/fz/summary.json"; }

if [[ $fails != 0 ]]; then echo "$fails failed"; exit 1; fi
echo PASS
