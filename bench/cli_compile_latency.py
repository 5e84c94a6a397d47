#!/usr/bin/python3
"""CPU compile latency as a user meets it: `reprokit compile GRAPH --json`, one
fresh process per compile, cold (an empty kernel cache directory each time) and
warm (the directory the cold runs filled), for every example and a generated
graph of about 300 distinct kernels (make_many_kernels.py). Prints a Markdown
table of medians: the compile's total (parse excluded: `total_ms`), its phases
(LLVM IR, O2 and codegen summed over the compile threads), the process's wall
time, and which phase is largest (docs/BENCHMARKS.md).

With --device cuda (on a GPU machine): the GPU's cold compile, the same way,
of the chain of 1,000 elementwise ops (gpu_bench's; 7 kernels as fusion's cap on a
CUDA kernel's ops cuts it, docs/GPU.md), examples/attention.rk and the chain
uncapped (--opt cuda_max_fused_ops=0: one kernel, as before the cap),
once per PTX assembler (REPROKIT_CUDA_ASSEMBLER: the driver's JIT, ptxas
processes, nvJitLink in process; compiler/cuda/runtime/ptx_assembler.h), each
cold process with an empty kernel cache (PTX and cubins) and an empty driver
JIT cache (CUDA_CACHE_PATH), then warm (both filled). Phases: graph (passes,
fusion, kernel IR), LLVM IR, O2, PTX (NVPTX code generation), PTX->SASS (the
assembler's wall time; with the driver, its JIT and load), load (cubins into
the driver), ctx wait (the part of the CUDA context's creation the compile
waited for; the context is made on a thread of its own while LLVM runs,
compiler/cuda/runtime/device_warm_up.h); the phases add up to the cold total.
Beside them, ctx: the context's whole creation on its thread (hidden but for
ctx wait). Exits 1 when a compile fails.

Then (unless --no-judge) `reprokit check` judges the chain, capped and uncapped,
against the fp64 reference.

Usage: cli_compile_latency.py REPROKIT [--repeat 5] [--prefix "chrt -f 50"]
       cli_compile_latency.py REPROKIT --device cuda [--repeat 5]
                              [--assemblers driver,ptxas,nvjitlink]
                              [--graphs chain_1000,attention] [--no-judge]
Run from the repository root (examples/ is read from there).
"""
import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PHASES = ["passes_ms", "fusion_ms", "kernel_ir_ms", "llvm_ir_ms", "optimize_ms", "codegen_ms",
          "link_ms"]


def compile_once(reprokit, graph, cache_dir, prefix, device="cpu", extra_env=None, opts=()):
    env = dict(os.environ, REPROKIT_KERNEL_CACHE=cache_dir, **(extra_env or {}))
    start = time.monotonic()
    run = subprocess.run(prefix + [reprokit, "compile", "--json", f"--device={device}", graph]
                         + [f"--opt={o}" for o in opts],
                         env=env, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"{' '.join(prefix + [reprokit, 'compile', graph])} ({device}, {extra_env}) "
                 f"exited {run.returncode}: {run.stderr.strip()}")
    out = run.stdout
    wall = (time.monotonic() - start) * 1000
    doc = json.loads(out)
    return doc["kernels"], doc["timings"], wall, doc.get("outputs")


def measure(reprokit, graph, repeat, prefix, work):
    cold, warm = [], []
    kernels = 0
    for i in range(repeat):
        cache = os.path.join(work, f"{os.path.basename(graph)}.{i}")
        kernels, timings, wall, _ = compile_once(reprokit, graph, cache, prefix)
        cold.append((timings, wall))
        warm.append(compile_once(reprokit, graph, cache, prefix)[1:3])
    return kernels, cold, warm


def median(samples, key):
    return statistics.median(key(s) for s in samples)


def long_chain(ops, output_every=0, rows=1024):
    """gpu_bench's chain: add y, mul y, tanh, sub y, sigmoid in turn on f32[rows,1024].
    With output_every=N every Nth value is an output too, which fusion materializes: the
    chain as ops/N kernels (what a cap on fused ops would make of it)."""
    t = f"f32[{rows},1024]"
    forms = ["add({}, %y)", "mul({}, %y)", "tanh({})", "sub({}, %y)", "sigmoid({})"]
    lines = [f"graph @chain{ops}(%x: {t}, %y: {t}) {{"]
    prev = "%x"
    for i in range(ops):
        lines.append(f"  %v{i} = {forms[i % 5].format(prev)} : {t}")
        prev = f"%v{i}"
    outputs = [f"%v{i}" for i in range(output_every - 1, ops - 1, output_every)] \
        if output_every else []
    lines.append(f"  return {', '.join(outputs + [prev])}\n}}")
    return "\n".join(lines) + "\n"


GPU_TARGETS = {"chain_1000": 300, "attention": 250}  # cold total, ms (issue #37)


GPU_PHASES = ["graph", "llvm_ir", "o2", "ptx", "sass", "load", "ctx_wait", "ctx"]


def gpu_phases(timings):
    """The cold total's parts (all but ctx add up to it) and ctx, the context's creation on
    its own thread (older binaries: no ctx fields, the context is inside ptx)."""
    assemble, load = timings.get("assemble_ms", 0), timings.get("load_ms", 0)
    wait = timings.get("context_wait_ms", 0)
    return {"graph": timings["passes_ms"] + timings["fusion_ms"] + timings["kernel_ir_ms"],
            "llvm_ir": timings["llvm_ir_ms"], "o2": timings["optimize_ms"],
            "ptx": timings["codegen_ms"] - assemble - load - wait, "sass": assemble,
            "load": load, "ctx_wait": wait, "ctx": timings.get("context_ms", 0)}


def gpu_main(args, prefix):
    failures = 0
    outputs = {}  # graph -> printed outputs -> the assemblers that printed them
    with tempfile.TemporaryDirectory() as work:
        chain = os.path.join(work, "chain_1000.rk")
        with open(chain, "w") as f:
            f.write(long_chain(1000))
        # name -> (graph, compile options): the chain as fusion cuts it by default
        # (cuda_max_fused_ops, docs/GPU.md), and uncapped, one kernel, as before the cap.
        graphs = {"chain_1000": (chain, ()), "attention": ("examples/attention.rk", ()),
                  "chain_1000_uncapped": (chain, ("cuda_max_fused_ops=0",))}
        wanted = args.graphs.split(",") if args.graphs else list(graphs)
        for name in wanted:
            if name not in graphs:
                sys.exit(f"unknown graph '{name}' (--graphs: {', '.join(graphs)})")
        print(f"load before: {os.getloadavg()[0]:.2f}; cores: {os.cpu_count()}; median of "
              f"{args.repeat}; ms; cold = a fresh process with empty kernel and driver JIT caches\n")
        print("| graph | assembler | kernels | cold total | graph | LLVM IR | O2 | PTX | PTX->SASS "
              "| load | ctx wait | ctx (own thread) | cold process wall | warm total "
              "| warm PTX->SASS | warm process wall | target |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for name in wanted:
            graph, opts = graphs[name]
            for mode in args.assemblers.split(","):
                cold, warm, kernels, used, notes = [], [], 0, set(), set()
                for i in range(args.repeat):
                    cache = os.path.join(work, f"{name}.{mode}.{i}")
                    env = {"REPROKIT_CUDA_ASSEMBLER": mode, "CUDA_CACHE_PATH": cache + ".jit"}
                    kernels, timings, wall, out = compile_once(args.reprokit, graph, cache,
                                                               prefix, "cuda", env, opts)
                    cold.append((timings, wall))
                    used.add(timings.get("assembler", "?"))
                    if timings.get("assembler_note"):
                        notes.add(timings["assembler_note"])
                    outputs.setdefault(name, {}).setdefault(json.dumps(out), []).append(mode)
                    warm.append(
                        compile_once(args.reprokit, graph, cache, prefix, "cuda", env, opts)[1:3])
                shown = "/".join(sorted(used))
                if used != {mode}:
                    shown += f" (asked {mode})"
                    failures += mode != "auto"
                phases = {p: median(cold, lambda s, p=p: gpu_phases(s[0])[p])
                          for p in GPU_PHASES}
                total = median(cold, lambda s: s[0]["total_ms"])
                target = GPU_TARGETS.get(name)
                verdict = "" if target is None else (
                    f"< {target}: {'met' if total < target else 'not met'}")
                print(f"| {name} | {shown} | {kernels} | {total:.1f} | "
                      + " | ".join(f"{phases[p]:.1f}" for p in phases)
                      + f" | {median(cold, lambda s: s[1]):.1f} "
                      f"| {median(warm, lambda s: s[0]['total_ms']):.1f} "
                      f"| {median(warm, lambda s: gpu_phases(s[0])['sass']):.1f} "
                      f"| {median(warm, lambda s: s[1]):.1f} | {verdict} |", flush=True)
                for note in sorted(notes):
                    print(f"  note ({name}, {mode}): {note}", flush=True)
        print(f"\nload after: {os.getloadavg()[0]:.2f}")
        # The cap must not change what the chain computes: both forms judged against the
        # fp64 reference (exit 0: every output within tolerance).
        if args.judge:
            # The same 1,000 ops on 16 rows: fusion cuts it the same way, and the judge's
            # fp64 reference of every value fits its memory limit (at 1024 rows it needs
            # 23.5 GiB against 8).
            small = os.path.join(work, "chain_1000_small.rk")
            with open(small, "w") as f:
                f.write(long_chain(1000, rows=16))
            for opts in [(), ("cuda_max_fused_ops=0",)]:
                cmd = [args.reprokit, "check", small, "--device=cuda", "--timeout=600"]
                cmd += [f"--opt={o}" for o in opts]
                run = subprocess.run(cmd, capture_output=True, text=True)
                verdict = "passes" if run.returncode == 0 else f"FAILS (exit {run.returncode})"
                print(f"check chain_1000 f32[16,1024] {' '.join(opts) or '(cap at its default)'}: "
                      f"{verdict}")
                if run.returncode != 0:
                    failures += 1
                    print((run.stdout + run.stderr).strip()[-1500:])
    for name, seen in outputs.items():
        if len(seen) == 1:
            print(f"{name}: the same outputs with every assembler and run")
        else:
            failures += 1
            print(f"{name}: OUTPUTS DIFFER between assemblers or runs:")
            for printed, modes in seen.items():
                print(f"  {sorted(set(modes))}: {printed[:300]}")
    if failures:
        sys.exit(f"{failures} failure(s): an assembler asked for was not used (the assembler "
                 "column) or outputs differ (above)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reprokit")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--prefix", default="", help="e.g. 'chrt -f 50' (realtime priority)")
    parser.add_argument("--kernels", type=int, default=300)
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--assemblers", default="driver,ptxas,nvjitlink",
                        help="with --device cuda: REPROKIT_CUDA_ASSEMBLER values, in turn")
    parser.add_argument("--graphs", default="",
                        help="with --device cuda: some of chain_1000,attention,"
                             "chain_1000_uncapped (default: all)")
    parser.add_argument("--no-judge", dest="judge", action="store_false",
                        help="with --device cuda: skip `check` of the chain, capped and not")
    args = parser.parse_args()
    prefix = shlex.split(args.prefix)
    if args.device == "cuda":
        gpu_main(args, prefix)
        return
    with tempfile.TemporaryDirectory() as work:
        many = os.path.join(work, f"generated_{args.kernels}.rk")
        with open(many, "w") as f:
            subprocess.run([sys.executable, os.path.join(HERE, "make_many_kernels.py"),
                            str(args.kernels)], stdout=f, check=True)
        graphs = [f"examples/{name}.rk"
                  for name in ["layer_norm", "softmax", "mlp", "mixed_bf16", "attention"]]
        graphs.append(many)
        print(f"load before: {os.getloadavg()[0]:.2f}; median of {args.repeat}; ms\n")
        print("| graph | kernels | cold total | passes | fusion | kernel IR | LLVM IR | O2 | codegen "
              "| link | largest phase | cold process wall | warm total | warm process wall |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for graph in graphs:
            kernels, cold, warm = measure(args.reprokit, graph, args.repeat, prefix, work)
            phases = {p: median(cold, lambda s, p=p: s[0][p]) for p in PHASES}
            largest = max(phases, key=phases.get)[:-3]
            print(f"| {os.path.basename(graph)[:-3]} | {kernels} "
                  f"| {median(cold, lambda s: s[0]['total_ms']):.1f} | "
                  + " | ".join(f"{phases[p]:.1f}" for p in PHASES)
                  + f" | {largest} | {median(cold, lambda s: s[1]):.1f} "
                  f"| {median(warm, lambda s: s[0]['total_ms']):.1f} "
                  f"| {median(warm, lambda s: s[1]):.1f} |")
        print(f"\nload after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
