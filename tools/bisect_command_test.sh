#!/usr/bin/env bash
# End-to-end checks of `reprokit bisect` on planted faults (docs/FAULTS.md):
# each mode names the known culprit, and the exit codes follow
# tools/bisect_command.cc.
set -u
bin="$TEST_SRCDIR/reprokit/tools/reprokit"
data="$TEST_SRCDIR/reprokit/repro/bisect/testdata"
cd "$TEST_TMPDIR"
fails=0
fail() { echo "FAIL: $*"; cat out err; fails=$((fails+1)); }
expect() {  # expect CODE DESCRIPTION -- command...
  local want=$1 what=$2; shift 3
  "$@" >out 2>err; local got=$?
  if [[ $got != "$want" ]]; then fail "$what: exit $got, want $want"; else echo "ok: $what"; fi
}

expect 0 "bisect --help" -- "$bin" bisect --help
grep -q -- "--good-opt" out || fail "help lacks --good-opt"
expect 2 "no mode" -- "$bin" bisect "$data/normalize.rk"
grep -q "exactly one of --passes, --options, --nodes" err || fail "no-mode message"
expect 2 "two modes" -- "$bin" bisect --passes --nodes "$data/normalize.rk"
expect 2 "missing graph" -- "$bin" bisect --passes does_not_exist.rk
expect 2 "bad option" -- "$bin" bisect --passes --opt bogus=1 "$data/normalize.rk"

# Passes: fuse:wrong_index is the fusion of the reduction with its epilogue.
expect 0 "passes: fuse:wrong_index" -- "$bin" bisect --passes --dump-dir=dumps \
  --opt faults=fuse:wrong_index "$data/normalize.rk"
grep -q "^first bad: pass 'fuse' application #[0-9]* of [0-9]*$" out || fail "no fuse culprit"
grep -q "touched: .*reduce_sum.*epilogue" out || fail "no fused node named"
grep -q "^  fusion.txt  *+[0-9]* -[0-9]* lines$" out || fail "no fusion diff"
[[ -s dumps/diff.txt ]] || fail "no diff.txt"
ls dumps | grep -q '^cap_[0-9]*$' || fail "no cap dumps"
expect 0 "passes: --json" -- "$bin" bisect --passes --json --dump-dir= \
  --opt faults=fuse:wrong_index "$data/normalize.rk"
grep -q '"pass": "fuse"' out || fail "json lacks the pass"

# Passes: an op fault in codegen survives cap 0.
expect 0 "passes: relu:accuracy persists" -- "$bin" bisect --passes --dump-dir= \
  --opt faults=relu:accuracy "$data/relu_chain.rk"
grep -q "persists with every optional pass disabled" out || fail "no persists message"

# Options: the one fault among several differences; then a good baseline.
expect 0 "options: minimal difference" -- "$bin" bisect --options --opt fast_math=true \
  --opt threads=2 --opt faults=exp:compile_error,relu:accuracy "$data/relu_chain.rk"
grep -q "^faults=relu:accuracy is enough$" out || fail "options culprit"
expect 0 "options: fast_math alone" -- "$bin" bisect --options --opt fast_math=true \
  --opt threads=2 --opt vector_width=4 "$data/cancelling_sum.rk"
grep -q "^fast_math=true is enough$" out || fail "options: fast_math culprit"
expect 0 "options: --good-opt" -- "$bin" bisect --options --good-opt disable_passes=fuse \
  --opt faults=fuse:wrong_index "$data/normalize.rk"
grep -q "disable_passes-=fuse faults+=fuse:wrong_index" out || fail "conjunction"
expect 1 "options: good fails too" -- "$bin" bisect --options --good-opt faults=relu:accuracy \
  --opt faults=relu:accuracy --opt threads=2 "$data/relu_chain.rk"
grep -q "good options fail the same way" err || fail "good-fails message"

# Nodes: the relu is the first wrong value.
expect 0 "nodes: relu:accuracy" -- "$bin" bisect --nodes --opt faults=relu:accuracy \
  "$data/relu_chain.rk"
grep -q "^first divergent node: %r = relu : f32" out || fail "nodes culprit"
grep -q "changes fusion" out || fail "no fusion note"
expect 0 "nodes: --json" -- "$bin" bisect --nodes --json --opt faults=relu:accuracy \
  "$data/relu_chain.rk"
grep -q '"first_divergent": "r"' out || fail "json divergent"
expect 2 "nodes on a crash" -- "$bin" bisect --nodes --opt faults=relu:crash "$data/relu_chain.rk"

# Nothing to bisect.
expect 1 "passing graph" -- "$bin" bisect --passes "$data/relu_chain.rk"
grep -q "nothing to bisect: it passes" err || fail "passing message"

# A bundle: its options and signature are used.
expect 0 "capture" -- "$bin" capture --opt faults=fuse:wrong_index -o bug "$data/normalize.rk"
expect 0 "bundle: passes" -- "$bin" bisect --passes --dump-dir= bug
grep -q "^first bad: pass 'fuse'" out || fail "bundle culprit"

if ((fails)); then echo "$fails failure(s)"; exit 1; fi
echo "all ok"
