"""Inductor (torch 2.11, CUDA): `(index-derived float > c) == bool constant` fails to compile.

Five forms of the finding `inductor_bool_eq_index_range_cuda` (docs/FOUND_BUGS.md), with torch
alone: python3 variants.py [cuda|cpu]. Each prints ok, WRONG or the compile failure; exit 1
while any form fails. On the H200 (torch 2.11.0+cu130) the four forms whose comparison reads an
arange fail with InductorError: TypeError (sympy: "A Boolean argument can only be used in Eq
and Ne"); the form on an input tensor compiles.
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
        print("%-40s compile FAILED: %s: %s" % (name, type(e).__name__, str(e).strip().splitlines()[-1][:160]))
        return 1
    same = out.dtype == eager.dtype and torch.equal(out, eager)
    print("%-40s %s" % (name, "ok" if same else "WRONG: %s vs eager %s" % (out, eager)))
    return 0 if same else 1


def iota_gt_eq_true_tensor():
    x = torch.arange(5, device=dev).reshape(1, 5, 1).expand(1, 5, 8).to(torch.float32)
    return (x > torch.full((), 0.0, device=dev)) == torch.full((), True, dtype=torch.bool, device=dev)


def iota_gt_eq_true_python():
    x = torch.arange(5, device=dev).reshape(1, 5, 1).expand(1, 5, 8).to(torch.float32)
    return (x > 0.0) == True  # noqa: E712


def iota_gt_eq_true_1d():
    x = torch.arange(5, device=dev).to(torch.float32)
    return (x > 0.0) == torch.ones((), dtype=torch.bool, device=dev)


def input_gt_eq_true(x):
    return (x > 0.0) == torch.ones((), dtype=torch.bool, device=dev)


def iota_gt_ne_true():
    x = torch.arange(5, device=dev).to(torch.float32)
    return (x > 0.0) != torch.ones((), dtype=torch.bool, device=dev)


bad = 0
bad += variant("arange>0 == full(True) [the finding]", iota_gt_eq_true_tensor)
bad += variant("arange>0 == True (python)", iota_gt_eq_true_python)
bad += variant("1-d arange>0 == tensor(True)", iota_gt_eq_true_1d)
bad += variant("1-d arange>0 != tensor(True)", iota_gt_ne_true)
bad += variant("input>0 == tensor(True)", input_gt_eq_true, torch.arange(5.0, device=dev))
sys.exit(1 if bad else 0)
