"""Inductor (torch 2.11, CUDA): cumsum of a constant ignores its explicit dtype.

Four forms of the finding `inductor_cumsum_dtype_dropped_cuda` (docs/FOUND_BUGS.md), with torch
alone: python3 variants.py [cuda|cpu]. Exit 1 while any form differs from eager. On the H200
(torch 2.11.0+cu130) both forms on a `full` constant return int64 for cumsum(dtype=int32);
the forms on an input tensor agree with eager.
"""
import sys
import torch

dev = sys.argv[1] if len(sys.argv) > 1 else "cuda"
print("torch", torch.__version__, dev)


def variant(name, fn, *args):
    eager = fn(*args)
    torch._dynamo.reset()
    try:
        out = torch.compile(fn, fullgraph=True)(*args)
    except Exception as e:  # noqa: BLE001
        print("%-44s compile FAILED: %s" % (name, str(e).strip().splitlines()[-1][:160]))
        return 1
    same = out.dtype == eager.dtype and torch.equal(out, eager)
    print("%-44s eager %s, compiled %s: %s" % (name, eager.dtype, out.dtype, "ok" if same else "WRONG"))
    return 0 if same else 1


def const_cast_cumsum():
    x = torch.full((5, 6), 0.25, device=dev).to(torch.int32)
    return torch.cumsum(x, dim=0, dtype=torch.int32)


def const_int_cumsum():
    x = torch.full((5, 6), 3, dtype=torch.int32, device=dev)
    return torch.cumsum(x, dim=0, dtype=torch.int32)


def input_cumsum(x):
    return torch.cumsum(x, dim=0, dtype=torch.int32)


def input_cumsum_nodtype(x):
    return torch.cumsum(x, dim=0)


bad = 0
bad += variant("full(0.25).to(i32).cumsum(dtype=i32) [finding]", const_cast_cumsum)
bad += variant("full(3, i32).cumsum(dtype=i32)", const_int_cumsum)
bad += variant("input i32 .cumsum(dtype=i32)", input_cumsum, torch.ones(5, 6, dtype=torch.int32, device=dev))
bad += variant("input i32 .cumsum() (promotes to i64)", input_cumsum_nodtype, torch.ones(5, 6, dtype=torch.int32, device=dev))
sys.exit(1 if bad else 0)
