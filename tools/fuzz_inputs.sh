#!/usr/bin/env bash
# Builds the libFuzzer harnesses of tools/fuzzers with clang++-19
# (-fsanitize=fuzzer,address,undefined) and fuzzes each for DURATION seconds.
#
#   tools/fuzz_inputs.sh 20                 every harness 20 s (what ./test.sh runs)
#   tools/fuzz_inputs.sh 3600 rk_text       one harness for an hour
#
# The sources of each harness are the workspace .cc files of its Bazel
# dependencies (`bazel query`), compiled here directly with clang: the Bazel
# build keeps g++ and is not reconfigured. Objects are cached in
# $RK_FUZZ_DIR (default $TMPDIR/reprokit-fuzz), keyed by the contents of the
# source and of the workspace headers it included (not their times, so a fresh
# checkout or another worktree reuses them), and rebuilt when one changes.
# New corpus entries go to $RK_FUZZ_DIR/corpus/NAME
# (the seeds checked in under tools/fuzzers/corpus are read, never written);
# a crash leaves its input in $RK_FUZZ_DIR/artifacts/NAME and makes the script
# exit 1. Prints one line per harness: executions, seconds, corpus size.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
duration="${1:-60}"; shift || true
all=(rk_text store_object unpack bundle flags onnx_import)
harnesses=("$@"); (( ${#harnesses[@]} )) || harnesses=("${all[@]}")
work="${RK_FUZZ_DIR:-${TMPDIR:-/tmp}/reprokit-fuzz}"
mkdir -p "$work/obj" "$work/bin"
cxx=clang++-19
command -v "$cxx" >/dev/null || { echo "fuzz_inputs: $cxx not found (tools/install_deps.sh installs it)" >&2; exit 2; }
san=(-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
# Line tables only (file:line in reports, a fraction of full -g's build time);
# LLVM's headers only for the version string (compiler/support/version.cc);
# ONNX's classes as //third_party/system:onnx.BUILD defines them.
cflags=(-std=c++20 -O1 -gline-tables-only -I"$root" -isystem "$(llvm-config-19 --includedir)"
        -DONNX_NAMESPACE=onnx -DONNX_ML=1 -fsanitize=fuzzer-no-link "${san[@]}" -w)
libs=(-Wl,--as-needed)
for l in /usr/lib/x86_64-linux-gnu/libabsl_*.so; do n="${l##*/lib}"; libs+=("-l${n%.so}"); done
libs+=(-lzstd -lcrypto -lonnx -lonnx_proto -lprotobuf -lpthread)

# Compiles one source to $work/obj unless the object was built from the same
# flags and the same contents of the source and of every header it included
# last time (-MMD: workspace headers; system headers change only with packages).
compile() {
  local src="$1" obj="$work/obj/${1//\//_}.o" dep sum key
  dep="${obj%.o}.d"; sum="${obj%.o}.key"
  if [[ -f "$obj" && -f "$dep" && -f "$sum" ]]; then
    key="$( { echo "$flags_key"; sed -e 's/\\$//' -e 's/^[^:]*://' "$dep" | xargs cat 2>&1; } | sha256sum)"
    [[ "$key" == "$(cat "$sum")" ]] && return 0
  fi
  "$cxx" "${cflags[@]}" -MMD -MF "$dep" -c "$src" -o "$obj.tmp.$$" || { echo "fuzz_inputs: cannot compile $src" >&2; return 1; }
  mv "$obj.tmp.$$" "$obj"
  { echo "$flags_key"; sed -e 's/\\$//' -e 's/^[^:]*://' "$dep" | xargs cat 2>&1; } | sha256sum > "$sum"
}
export -f compile; export work cxx; export cflags_str="${cflags[*]}"
# The key leaves out include directories (the checkout's and Bazel's output
# paths): what they hold is in the key through the headers' contents.
flags_key="$(printf '%s\n' "${cflags[@]}" | grep -v '^-I' | tr '\n' ' ')"; export flags_key

status=0
for name in "${harnesses[@]}"; do
  # The workspace sources of the harness library and everything it uses, with
  # select()s resolved as the ordinary build resolves them (cquery; a plain
  # query would list both checker.cc and checker_absent.cc).
  mapfile -t srcs < <(bazel cquery "kind('source file', deps(//tools/fuzzers:${name}_fuzzer))" \
      --output=label 2>/dev/null | grep '^//' | sed 's/ (null)$//' | grep '\.cc$' \
      | sed -e 's|^//||' -e 's|:|/|' -e 's|^/||')
  (( ${#srcs[@]} )) || { echo "fuzz_inputs: no sources for $name (bazel query failed?)" >&2; status=1; continue; }
  # Generated headers (build_info_generated.h) come from Bazel's output tree.
  mapfile -t gens < <(bazel query "kind(genrule, deps(//tools/fuzzers:${name}_fuzzer))" \
      --output=label 2>/dev/null)
  if (( ${#gens[@]} )); then
    bazel build "${gens[@]}" >/dev/null 2>&1 || { echo "fuzz_inputs: cannot build ${gens[*]}" >&2; status=1; continue; }
    genfiles="$(bazel info bazel-genfiles 2>/dev/null)"
    [[ " $cflags_str " == *" -I$genfiles "* ]] || { cflags+=("-I$genfiles"); cflags_str="${cflags[*]}"; }
  fi
  printf '%s\n' "${srcs[@]}" | xargs -P "$(nproc)" -I{} bash -c 'cflags=($cflags_str); compile {}' \
    || { status=1; continue; }
  objs=(); for s in "${srcs[@]}"; do objs+=("$work/obj/${s//\//_}.o"); done
  bin="$work/bin/${name}_fuzzer"
  "$cxx" -fsanitize=fuzzer "${san[@]}" "${objs[@]}" -o "$bin" "${libs[@]}" \
    || { echo "fuzz_inputs: cannot link $name" >&2; status=1; continue; }
  (( duration > 0 )) || continue
  corpus="$work/corpus/$name"; artifacts="$work/artifacts/$name"
  mkdir -p "$corpus" "$artifacts"
  dict=(); [[ -f "tools/fuzzers/$name.dict" ]] && dict=(-dict="tools/fuzzers/$name.dict")
  [[ $name == rk_text ]] && dict=(-dict=tools/fuzzers/rk.dict)
  log="$work/$name.log"
  ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 "$bin" -max_total_time="$duration" \
      -timeout=10 -rss_limit_mb=2560 -malloc_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$artifacts/" "${dict[@]}" "$corpus" "tools/fuzzers/corpus/$name" >"$log" 2>&1
  rc=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  secs=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | grep -o 'in [0-9]*' | grep -o '[0-9]*' | tail -1)
  printf 'fuzz %-14s %10s execs %6s s  corpus %5s  %s\n' "$name" "${runs:-?}" "${secs:-?}" \
    "$(ls "$corpus" | wc -l)" "$( ((rc == 0)) && echo ok || echo "CRASH (rc $rc, see $log)")"
  if (( rc != 0 )); then status=1; tail -40 "$log" >&2; fi
done
exit $status
