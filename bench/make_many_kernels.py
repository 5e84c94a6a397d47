#!/usr/bin/python3
"""Writes a graph of about N distinct CPU kernels for the compile-latency
benchmark (docs/BENCHMARKS.md, "Compile latency (CPU)"):
a chain of N/3 blocks, block i a matmul from width 16+i-1 to 16+i (f32[8,*]),
then a softmax over the row (max; exp-sum and divide), so every block's
three kernels differ from every other block's and nothing is shared.

Usage: make_many_kernels.py N > graph.rk
"""
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    blocks = max(1, int(sys.argv[1]) // 3)
    rows = 8
    widths = [16 + i for i in range(blocks + 1)]
    inputs = [f"%x: f32[{rows},{widths[0]}]"]
    inputs += [f"%w{i}: f32[{widths[i]},{widths[i + 1]}]" for i in range(blocks)]
    body, prev = [], "%x"
    for i in range(blocks):
        d = widths[i + 1]
        t = f"f32[{rows},{d}]"
        body += [
            f"  %m{i} = matmul({prev}, %w{i}) : {t}",
            f"  %s{i} = softmax(%m{i}) {{axis=1}} : {t}",
        ]
        prev = f"%s{i}"
    print(f"graph @many({', '.join(inputs)}) {{")
    print("\n".join(body))
    print(f"  return {prev}")
    print("}")


if __name__ == "__main__":
    main()
