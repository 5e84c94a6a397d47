#!/usr/bin/python3
"""CPU compile latency as a user meets it: `reprokit compile GRAPH --json`, one
fresh process per compile, cold (an empty kernel cache directory each time) and
warm (the directory the cold runs filled), for every example and a generated
graph of about 300 distinct kernels (make_many_kernels.py). Prints a Markdown
table of medians: the compile's total (parse excluded: `total_ms`), its phases
(LLVM IR, O2 and codegen summed over the compile threads), the process's wall
time, and which phase is largest (docs/BENCHMARKS.md).

Usage: cli_compile_latency.py REPROKIT [--repeat 5] [--prefix "chrt -f 50"]
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


def compile_once(reprokit, graph, cache_dir, prefix):
    env = dict(os.environ, REPROKIT_KERNEL_CACHE=cache_dir)
    start = time.monotonic()
    out = subprocess.run(prefix + [reprokit, "compile", "--json", graph], env=env,
                         capture_output=True, text=True, check=True).stdout
    wall = (time.monotonic() - start) * 1000
    doc = json.loads(out)
    return doc["kernels"], doc["timings"], wall


def measure(reprokit, graph, repeat, prefix, work):
    cold, warm = [], []
    kernels = 0
    for i in range(repeat):
        cache = os.path.join(work, f"{os.path.basename(graph)}.{i}")
        kernels, timings, wall = compile_once(reprokit, graph, cache, prefix)
        cold.append((timings, wall))
        warm.append(compile_once(reprokit, graph, cache, prefix)[1:])
    return kernels, cold, warm


def median(samples, key):
    return statistics.median(key(s) for s in samples)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reprokit")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--prefix", default="", help="e.g. 'chrt -f 50' (realtime priority)")
    parser.add_argument("--kernels", type=int, default=300)
    args = parser.parse_args()
    prefix = shlex.split(args.prefix)
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
