#!/usr/bin/env python3
"""PyTorch side of the GPU comparison (docs/GPU.md): the cases of
bench/gpu_bench.cc (same shapes and dtypes) through torch.compile (Inductor)
and eager, on the GPU machine with PyTorch 2.11.

Per case: cold compile time (first call after torch._dynamo.reset() with an
empty Inductor cache directory and the FX graph cache off, so nothing is
reused), warm compile time (reset again, same cache directory: what a
re-compile in a fresh process with a warm on-disk cache costs), kernel time
(median of CUDA-event timings via triton.testing.do_bench), the achieved
bandwidth over the fewest bytes the graph must move, that as a share of the
device-to-device copy bandwidth measured in the same run, and TFLOP/s for
matmul. Inputs are random (never zeros).

Cold start (--cold-start): each case's first torch.compile call in a fresh
Python process (this script again, --first-compile N) with empty Inductor and
Triton cache directories, timed from the call to its return (the kernel's one
run included) with the inputs already on the device, plus chains of 10, 100
and 1,000 elementwise ops on f32[1024,1024] (add y, mul y, tanh, sub y,
sigmoid in turn), as bench/gpu_bench.cc --cold-start measures reprokit.

  python3 bench/torch_compare.py [--quick] [--json FILE]
  python3 bench/torch_compare.py --cold-start [--repeat N] [--quick] [--json FILE]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import torch
import torch.nn.functional as F


def copy_bandwidth_gbs(nbytes=1 << 30):
    a = torch.empty(nbytes, dtype=torch.uint8, device="cuda").random_(0, 255)
    b = torch.empty_like(a)
    for _ in range(3):
        b.copy_(a)
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(20):
        b.copy_(a)
    stop.record()
    stop.synchronize()
    ms = start.elapsed_time(stop) / 20
    return 2 * nbytes / (ms * 1e6)


def chain(x, b):
    a = x + b
    g = F.gelu(a)
    m = g * x
    s = torch.sigmoid(m)
    return s * a


def softmax(x):
    return torch.softmax(x, dim=1)


def layer_norm(x, g, b):
    return F.layer_norm(x, (x.shape[-1],), g, b, eps=1e-5)


def matmul(a, b):
    return a @ b


def reduce_sum_full(x):
    return x.sum()


def reduce_sum_rows(x):
    return x.sum(dim=1)


def argmax_full(x):
    return torch.argmax(x)


def cases(quick):
    rows = 4096 if quick else 16384
    mm = 1024 if quick else 4096
    out = []
    for dtype in (torch.float32, torch.bfloat16):
        name = "f32" if dtype == torch.float32 else "bf16"
        out.append(("elementwise chain", name, chain, [(rows, 4096), (4096,)], dtype, 0))
        out.append(("softmax", name, softmax, [(rows, 4096)], dtype, 0))
        out.append(("layer_norm", name, layer_norm, [(rows, 4096), (4096,), (4096,)], dtype, 0))
        out.append(("layer_norm", name, layer_norm, [(rows * 4, 768), (768,), (768,)], dtype, 0))
        out.append(("matmul", name, matmul, [(mm, mm), (mm, mm)], dtype, 2.0 * mm ** 3))
    out.append(("matmul", "f16", matmul, [(mm, mm), (mm, mm)], torch.float16, 2.0 * mm ** 3))
    out.append(("matmul tf32", "f32", matmul, [(mm, mm), (mm, mm)], torch.float32, 2.0 * mm ** 3))
    # Few long rows (two passes in reprokit, compiler/cuda/planning/split_rows.h).
    n = 1 << (24 if quick else 26)
    few_rows = (64, 1 << (18 if quick else 20))
    f32 = torch.float32
    out.append(("reduce_sum full", "f32", reduce_sum_full, [(n,)], f32, 0))
    out.append(("reduce_sum rows", "f32", reduce_sum_rows, [few_rows], f32, 0))
    out.append(("argmax full", "f32", argmax_full, [(n,)], f32, 0))
    return out


def long_chain(ops):
    def fn(x, y):
        v = x
        for i in range(ops):
            k = i % 5
            if k == 0:
                v = v + y
            elif k == 1:
                v = v * y
            elif k == 2:
                v = torch.tanh(v)
            elif k == 3:
                v = v - y
            else:
                v = torch.sigmoid(v)
        return v
    return fn


def cold_start_cases(quick):
    out = cases(quick)
    for ops in (10, 100, 1000):
        out.append((f"chain of {ops} ops", "f32", long_chain(ops), [(1024, 1024), (1024, 1024)],
                    torch.float32, 0))
    return out


def random_inputs(shapes, dtype):
    gen = torch.Generator(device="cuda").manual_seed(17)
    return [torch.rand(s, device="cuda", dtype=dtype, generator=gen) * 2 - 1 for s in shapes]


def first_compile(quick, index):
    """Child of --cold-start: prints one JSON line."""
    name, dtype_name, fn, shapes, dtype, _ = cold_start_cases(quick)[index]
    inputs = random_inputs(shapes, dtype)
    torch.cuda.synchronize()
    start = time.perf_counter()
    torch.compile(fn)(*inputs)
    torch.cuda.synchronize()
    ms = (time.perf_counter() - start) * 1e3
    shape = "[" + ",".join(str(d) for d in shapes[0]) + "]"
    print(json.dumps({"case": name, "dtype": dtype_name, "shape": shape, "cold_start_ms": ms,
                      "torch": torch.__version__}))


def first_compile_in_child(index, quick):
    """One --first-compile child with empty caches: its result, or an error text."""
    cache = tempfile.mkdtemp(prefix="inductor_cold_")
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache,
               TRITON_CACHE_DIR=os.path.join(cache, "triton"),
               TORCHINDUCTOR_FX_GRAPH_CACHE="0", TORCHINDUCTOR_AUTOGRAD_CACHE="0")
    command = [sys.executable, os.path.abspath(__file__), "--first-compile", str(index)]
    if quick:
        command.append("--quick")
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    shutil.rmtree(cache, ignore_errors=True)
    lines = [l for l in done.stdout.splitlines() if l.startswith("{")]
    if done.returncode != 0 or not lines:
        return done.stderr[-400:]
    return json.loads(lines[-1])


def cold_start(quick, repeat, json_path):
    print(f"first torch.compile call in a fresh process, empty caches (ms; median of {repeat})")
    print(f"{'case':<18} {'dtype':<5} {'shape':<14} {'cold_start_ms':>13}   all runs", flush=True)
    results = []
    for index, (name, dtype_name, _, _, _, _) in enumerate(cold_start_cases(quick)):
        runs = [first_compile_in_child(index, quick) for _ in range(repeat)]
        failed = [r for r in runs if isinstance(r, str)]
        if failed:
            print(f"{name:<18} {dtype_name:<5} failed: {failed[0]}", flush=True)
            continue
        runs.sort(key=lambda r: r["cold_start_ms"])
        result = dict(runs[len(runs) // 2])
        result["runs_ms"] = [r["cold_start_ms"] for r in runs]
        results.append(result)
        all_runs = " ".join(f"{ms:.1f}" for ms in result["runs_ms"])
        print(f"{name:<18} {dtype_name:<5} {result['shape']:<14} {result['cold_start_ms']:13.1f}"
              f"   {all_runs}", flush=True)
    if json_path:
        with open(json_path, "w") as f:
            json.dump(results, f, indent=1)


def kernel_ms(fn, args):
    import triton.testing
    return triton.testing.do_bench(lambda: fn(*args), warmup=50, rep=300, return_mode="median")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", default="")
    parser.add_argument("--cold-start", action="store_true")
    parser.add_argument("--first-compile", type=int, default=-1)
    parser.add_argument("--repeat", type=int, default=1, help="cold-start runs a case (median)")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("torch_compare: no GPU")
    if args.first_compile >= 0:
        return first_compile(args.quick, args.first_compile)
    if args.cold_start:
        return cold_start(args.quick, max(1, args.repeat), args.json)
    os.environ["TORCHINDUCTOR_FX_GRAPH_CACHE"] = "0"
    os.environ["TORCHINDUCTOR_AUTOGRAD_CACHE"] = "0"
    cache = tempfile.mkdtemp(prefix="inductor_")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache
    props = torch.cuda.get_device_properties(0)
    copy = copy_bandwidth_gbs()
    print(f"device: {props.name}, torch {torch.__version__}")
    print(f"device-to-device copy bandwidth (read + write, 1 GiB): {copy:.0f} GB/s\n")
    header = (f"{'case':<18} {'dtype':<5} {'shape':<14} {'cold_ms':>9} {'warm_ms':>9} "
              f"{'eager_ms':>9} {'kernel_ms':>9} {'GB/s':>8} {'%copy':>7} {'TFLOP/s':>8}")
    print(header)
    results = []
    for name, dtype_name, fn, shapes, dtype, flops in cases(args.quick):
        # TF32 only where the case asks for it (torch's default is off).
        torch.backends.cuda.matmul.allow_tf32 = name.endswith("tf32")
        inputs = random_inputs(shapes, dtype)
        nbytes = sum(t.numel() * t.element_size() for t in inputs)
        out = fn(*inputs)
        nbytes += out.numel() * out.element_size()
        eager = kernel_ms(fn, inputs)
        torch._dynamo.reset()
        compiled = torch.compile(fn)
        torch.cuda.synchronize()
        start = time.perf_counter()
        compiled(*inputs)
        torch.cuda.synchronize()
        cold = (time.perf_counter() - start) * 1e3
        torch._dynamo.reset()
        recompiled = torch.compile(fn)
        start = time.perf_counter()
        recompiled(*inputs)
        torch.cuda.synchronize()
        warm = (time.perf_counter() - start) * 1e3
        ms = kernel_ms(recompiled, inputs)
        gbs = nbytes / (ms * 1e6)
        tflops = flops / (ms * 1e9) if flops else 0.0
        shape = "[" + ",".join(str(d) for d in shapes[0]) + "]"
        print(f"{name:<18} {dtype_name:<5} {shape:<14} {cold:9.1f} {warm:9.1f} {eager:9.3f} "
              f"{ms:9.3f} {gbs:8.0f} {100 * gbs / copy:6.0f}% {tflops:8.2f}", flush=True)
        results.append({"case": name, "dtype": dtype_name, "shape": shape,
                        "cold_compile_ms": cold, "warm_compile_ms": warm, "eager_ms": eager,
                        "kernel_ms": ms, "gb_per_s": gbs, "copy_gb_per_s": copy,
                        "tflops": tflops, "torch": torch.__version__, "device": props.name})
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
