#!/usr/bin/env bash
# End-to-end checks of the bundle subcommands: capture -> run -> pack -> unpack.
set -u
bin="$TEST_SRCDIR/reprokit/tools/reprokit"
examples="$TEST_SRCDIR/reprokit/examples"
cd "$TEST_TMPDIR" || exit 1
out="$TEST_TMPDIR/out" err="$TEST_TMPDIR/err"
fails=0
fail() { echo "FAIL: $*"; cat "$out" "$err"; fails=$((fails+1)); }
expect() {  # expect CODE DESCRIPTION -- command...
  local want=$1 what=$2; shift 3
  "$@" >"$out" 2>"$err"; local got=$?
  if [[ $got != "$want" ]]; then fail "$what: exit $got, want $want"; else echo "ok: $what"; fi
}

cat > g.rk <<'GRAPH'
graph @small(%x: f32[4,8], %b: f32[8]) {
  %s = add(%x, %b) : f32[4,8]
  %r = relu(%s) : f32[4,8]
  return %r
}
GRAPH

# A compile error, captured and replayed.
expect 0 "capture a failing compile" -- "$bin" capture g.rk --opt faults=relu:compile_error -o bug
grep -q "captured compile_error (compile_error:INTERNAL:" "$out" || fail "capture summary"
for f in graph.rk repro.json README.md; do [[ -f bug/$f ]] || fail "bundle lacks $f"; done
grep -q '"format": "reprokit-bundle"' bug/repro.json || fail "repro.json lacks the format"
grep -q '"text": "faults=relu:compile_error"' bug/repro.json || fail "options not recorded"
grep -q '"kind": "compile_error"' bug/repro.json || fail "verdict not recorded"
grep -q '"source": "random"' bug/repro.json || fail "seeded inputs not recorded as recipes"
grep -q "reprokit run \." bug/README.md || fail "README lacks rerun instructions"
expect 1 "run reproduces the compile error" -- "$bin" run bug
grep -q "compile failed: .*injected fault" "$err" || fail "run does not say why"

# A hang captured with --timeout keeps it: check and minify wait that long per
# hanging candidate, not the 60 s default (issue #24, defect 11).
expect 0 "capture a hang with --timeout 1" -- "$bin" capture g.rk --opt faults=relu:hang --timeout 1 -o hang
grep -q '"timeout_seconds": 1' hang/repro.json || fail "capture's --timeout not recorded"
start=$SECONDS
expect 1 "check of the hang bundle uses its timeout" -- "$bin" check hang
grep -q "timed out after 1s" "$out" || fail "check did not use the bundle's timeout"
((SECONDS - start < 20)) || fail "check of the hang bundle took $((SECONDS - start)) s"
expect 2 "minify --timeout nan" -- "$bin" minify hang -o hang.min --timeout nan
start=$SECONDS
expect 0 "minify a hang bundle with its timeout" -- "$bin" minify hang -o hang.min
((SECONDS - start < 40)) || fail "minify of the hang bundle took $((SECONDS - start)) s"
grep -q "relu" hang.min/graph.rk || fail "minified hang lost its relu"

# A passing compile with stored inputs.
head -c 128 /dev/urandom > x.bin
head -c 32 /dev/zero > b.bin
expect 0 "capture with --inputs" -- "$bin" capture g.rk --inputs x.bin --inputs b.bin -o good
grep -q '"source": "blob"' good/repro.json || fail "inputs not stored as blobs"
ls good/blobs/cas/*/* >/dev/null 2>&1 || fail "no blobs in the bundle"
expect 0 "run a passing bundle" -- "$bin" run good
grep -q "out0 %r: f32\[4,8\]" "$out" || fail "run prints no output summary"
expect 0 "run --json" -- "$bin" run --json good
grep -q '"ok": true' "$out" || fail "run --json"
expect 0 "capture an example" -- "$bin" capture "$examples/mlp.rk" --seed 3 -o mlp_bundle

# Pack and unpack: byte-identical, refusing to overwrite or to read junk.
expect 0 "pack" -- "$bin" pack bug -o bug.tar.zst
expect 0 "unpack" -- "$bin" unpack bug.tar.zst -o unpacked
diff -r bug unpacked >/dev/null || fail "unpacked bundle differs"
expect 1 "run the unpacked bundle" -- "$bin" run unpacked
expect 0 "pack with the default name" -- "$bin" pack good
[[ -f good.tar.zst ]] || fail "default archive name"
expect 2 "unpack over an existing directory" -- "$bin" unpack bug.tar.zst -o bug
grep -q "refusing to overwrite" "$err" || fail "unclear overwrite error"
head -c 100 bug.tar.zst > broken.tar.zst
expect 2 "unpack a truncated archive" -- "$bin" unpack broken.tar.zst -o broken
[[ -e broken ]] && fail "a truncated archive left a directory behind"

# Bad input.
mkdir -p notabundle && echo hi > notabundle/file
expect 2 "run a non-bundle" -- "$bin" run notabundle
expect 2 "capture over a non-bundle directory" -- "$bin" capture g.rk -o notabundle
expect 2 "capture without -o" -- "$bin" capture g.rk
expect 2 "capture --seed with --inputs" -- "$bin" capture g.rk --seed 1 --inputs x.bin --inputs b.bin -o z
expect 2 "capture wrong-sized input" -- "$bin" capture g.rk --inputs b.bin --inputs b.bin -o z
expect 2 "capture a bad option" -- "$bin" capture g.rk --opt bogus=1 -o z
expect 2 "pack a non-bundle" -- "$bin" pack notabundle -o n.tar.zst
# Nothing existing is overwritten or replaced without being asked.
echo "keep me" > precious.txt
expect 2 "pack over an existing file" -- "$bin" pack bug -o precious.txt
grep -q "keep me" precious.txt || fail "pack overwrote an existing file"
expect 0 "pack --force over an existing archive" -- "$bin" pack bug -o bug.tar.zst --force
expect 2 "unpack past --max-bytes" -- "$bin" unpack bug.tar.zst -o toosmall --max-bytes 100
grep -q "exceed the limit of 100 bytes" "$err" || fail "unpack limit message"
[[ ! -e toosmall ]] || fail "a refused unpack left toosmall behind"
cp bug/repro.json before.json
expect 2 "minify into its own input" -- "$bin" minify bug -o bug
expect 2 "minify into its own input, spelled differently" -- "$bin" minify bug -o ./bug/
cmp -s before.json bug/repro.json || fail "minify -o BUNDLE changed the input"
# minify --partitions (window_scan first, docs/MINIFIER.md): -j 1 and -j 2
# accept the same sequence and end on the relu.
expect 0 "capture an accuracy fault" -- "$bin" capture "$examples/mlp.rk" --opt faults=relu:accuracy -o acc
for j in 1 2; do
  expect 0 "minify --partitions -j $j" -- "$bin" minify acc -o acc.p$j --partitions -j $j --json
  grep -o '"accepted_sequence": *"[0-9a-f]*"' "$out" > seq$j || fail "--json lacks accepted_sequence"
  grep -q "relu(" acc.p$j/graph.rk || fail "minify --partitions -j $j lost the relu"
done
cmp -s seq1 seq2 || fail "minify --partitions: -j 1 and -j 2 accepted different sequences"
for c in capture run pack unpack; do expect 0 "$c --help" -- "$bin" $c --help; done
exit $((fails > 0))
