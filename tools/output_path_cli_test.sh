#!/usr/bin/env bash
# Every command that writes an output checks the place before any work, the
# same way (tools/output_path.h): an existing file where a directory goes, a
# directory where a file goes, or a place under a file is bad input, exit 2,
# with nothing changed; minify in particular never reports a bad -o as "does
# not reproduce" (exit 1).
set -u
R="$TEST_SRCDIR/reprokit/tools/reprokit"
EX="$TEST_SRCDIR/reprokit/examples"
T="$(mktemp -d "${TEST_TMPDIR:-/tmp}/outpath.XXXXXX")"
cd "$T"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect_refused PATTERN CMD...: exit 2 naming the problem; "taken" unchanged
# and no "taken.d/x" created.
expect_refused() {
  local pattern="$1"; shift
  "$@" >out.txt 2>&1
  local got=$?
  if [[ $got != 2 ]]; then
    fail "exit $got, want 2: $*"; cat out.txt
  elif ! grep -Eq -- "$pattern" out.txt; then
    fail "no /$pattern/ in the output of: $*"; cat out.txt
  else
    echo "ok: $*"
  fi
  [[ "$(cat taken)" == "keep me" ]] || fail "taken was changed by: $*"
  [[ -z "$(ls taken.d)" ]] || fail "taken.d was written into by: $*"
}

# Inputs made first: a bundle (with a planted failure), a model, an archive,
# a campaign.
"$R" capture "$EX/mlp.rk" --opt faults=relu:accuracy -o bundle >/dev/null 2>&1 || fail "capture"
"$R" export --onnx bundle -o model.onnx >/dev/null 2>&1 || fail "export"
"$R" pack bundle -o bundle.tar.zst >/dev/null 2>&1 || fail "pack"
echo "keep me" > taken
mkdir taken.d

not_dir="exists and is not a directory"
is_dir="is a directory"
under_file="taken is not a directory"
# Directory outputs: an existing file, and a place under a file.
for o in taken taken/below; do
  pattern="$not_dir"; [[ $o == taken/below ]] && pattern="$under_file"
  expect_refused "$pattern" "$R" capture "$EX/mlp.rk" -o "$o"
  expect_refused "$pattern" "$R" minify bundle -o "$o"
  expect_refused "$pattern" "$R" import model.onnx -o "$o"
  expect_refused "$pattern" "$R" unpack bundle.tar.zst -o "$o"
  expect_refused "$pattern" "$R" emit bundle --package repros/x --workspace "$o"
  expect_refused "$pattern" "$R" fuzz --iterations 1 --no-emit --quiet --out "$o"
  expect_refused "$pattern" "$R" fuzz --iterations 1 --no-emit --quiet --out c --workspace "$o"
  expect_refused "$pattern" "$R" fuzz merge --store store -o "$o" record.json
  expect_refused "$pattern" "$R" demo -o "$o"
done
# File outputs: an existing directory, and a place under a file.
for o in taken.d taken/x.out; do
  pattern="$is_dir"; [[ $o == taken/x.out ]] && pattern="$under_file"
  expect_refused "$pattern" "$R" export --onnx bundle -o "$o"
  expect_refused "$pattern" "$R" pack bundle -o "$o"
  expect_refused "$pattern" "$R" report bundle -o "$o"
done
[[ ! -e c ]] || fail "a refused fuzz created its campaign directory"

# An existing file replaced where a command replaces files, a new place
# created: the check lets the ordinary cases through.
"$R" export --onnx bundle -o model.onnx >/dev/null 2>&1 || fail "export over an existing file"
"$R" minify bundle -o deeper/min >/dev/null 2>&1 || fail "minify into a new nested directory"
[[ -f deeper/min/graph.rk ]] || fail "minify wrote no bundle"

rm -rf "$T"
if [[ $fails != 0 ]]; then echo "$fails failure(s)"; exit 1; fi
echo PASS
