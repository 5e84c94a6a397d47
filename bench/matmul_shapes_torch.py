#!/usr/bin/env python3
"""Inductor's (cuBLAS) TFLOP/s at the matmul shapes of `gpu_bench --matmul`
(bench/gpu_bench.cc): bf16/f16 4096^3 a @ b, and the zoo models' linear
layers x @ w^T with w stored [N, K]. Kernel time by triton.testing.do_bench
(median), inputs resident, after torch.compile (Inductor) has compiled the
function once.

  python3 bench/matmul_shapes_torch.py
"""

import torch
import triton.testing

LINEAR = [(128, 768, 768), (128, 768, 3072), (128, 3072, 768), (197, 192, 576),
          (197, 192, 768), (197, 768, 192), (1, 512, 1000), (8192, 4096, 4096)]


def main():
    print(f"device: {torch.cuda.get_device_name()}")
    print(f"{'case':7s} {'dtype':5s} {'m,k,n':16s} {'inductor':>10s}")
    for name, dtype in (("bf16", torch.bfloat16), ("f16", torch.float16)):
        cases = [("matmul", 4096, 4096, 4096)] + [("linear",) + s for s in LINEAR]
        for case, m, k, n in cases:
            torch._dynamo.reset()
            a = torch.randn(m, k, device="cuda", dtype=dtype)
            if case == "matmul":
                b = torch.randn(k, n, device="cuda", dtype=dtype)
                fn = torch.compile(lambda x, y: x @ y)
            else:
                b = torch.randn(n, k, device="cuda", dtype=dtype)
                fn = torch.compile(lambda x, w: x @ w.t())
            fn(a, b)
            ms = triton.testing.do_bench(lambda: fn(a, b), return_mode="median")
            tflops = 2.0 * m * k * n / (ms * 1e9)
            print(f"{case:7s} {name:5s} {f'{m},{k},{n}':16s} {tflops:10.1f}", flush=True)


if __name__ == "__main__":
    main()
