"""Shared by the reprokit_torch tests: the reprokit binary, bundles, outputs."""

import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import torch  # noqa: E402
from torch.fx.experimental.proxy_tensor import make_fx  # noqa: E402

import reprokit_torch  # noqa: E402

REPROKIT = os.environ.get("REPROKIT_BIN") or os.path.join(
    os.path.dirname(os.path.dirname(HERE)), "bazel-bin", "tools", "reprokit")
TMP = os.environ.get("TEST_TMPDIR") or tempfile.mkdtemp()
_count = [0]


def r(*shape, dtype=torch.float32):
    """Seeded-by-the-caller random values of a shape and dtype."""
    return torch.randn(*shape).to(dtype)


def new_dir(tag):
    _count[0] += 1
    return os.path.join(TMP, "%s-%d" % (re.sub(r"[^A-Za-z0-9_]", "_", tag), _count[0]))


def read(path):
    with open(path) as f:
        return f.read()


def load_json(path):
    return json.loads(read(path))


def reprokit(*args):
    return subprocess.run([REPROKIT] + [str(a) for a in args], capture_output=True, text=True)


def run_outputs(bundle):
    """The outputs `reprokit run` computes on the bundle's inputs, as float lists."""
    proc = reprokit("run", bundle, "--json", "--values", "1000000")
    if proc.returncode != 0:
        raise AssertionError("reprokit run %s: exit %d\n%s%s" % (bundle, proc.returncode,
                                                              proc.stdout, proc.stderr))
    outs = []
    for o in json.loads(proc.stdout)["outputs"]:
        summary = o["summary"]
        values = summary[summary.index("[", summary.index("]") + 1) + 1:summary.rindex("]")] \
            if " [" in summary else ""
        outs.append([float(v) for v in values.split(",") if v.strip() and v.strip() != "..."])
    return outs


def assert_close(test, got, want, what):
    """reprokit prints 6 significant digits: the tolerance is a few of its roundings,
    or a rounding of the dtype for f16/bf16 (which may be fused or kept in f32)."""
    rel = {torch.float16: 2e-3, torch.bfloat16: 1.6e-2}.get(want.dtype, 2e-5)
    want = [float(v) for v in want.detach().double().reshape(-1).tolist()]
    test.assertEqual(len(got), len(want), "%s: %d values, want %d" % (what, len(got), len(want)))
    scale = max([abs(w) for w in want if w == w and abs(w) != float("inf")] + [1e-30])
    for i, (g, w) in enumerate(zip(got, want)):
        if w != w:
            test.assertTrue(g != g, "%s[%d]: %r, want NaN" % (what, i, g))
            continue
        tol = rel * abs(w) + rel / 10 * scale + 1e-7
        test.assertLessEqual(abs(g - w), tol, "%s[%d]: %r, want %r" % (what, i, g, w))
