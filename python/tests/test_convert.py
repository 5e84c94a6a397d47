"""The ATen -> reprokit converter, op family by op family, through the real CLI.

Each case is a small function traced by make_fx (torch 1.13's ATen graphs);
its bundle must load and pass `reprokit check` with the built-in compiler, and
`reprokit run` on the recorded inputs must give torch's eager outputs. Then an
MLP's forward and backward graphs from AOT autograd, a planted fault that
`check` must catch, and unsupported ops that must be listed, never dropped.
"""

import json
import math
import operator
import os
import subprocess
import sys
import unittest

import torch
import torch.nn as nn
import torch.nn.functional as F

from rk_testutil import (REPROKIT, assert_close, load_json, make_fx, new_dir, read, reprokit,
                         reprokit_torch, run_outputs)

torch.manual_seed(0)


def r(*shape, dtype=torch.float32):
    return torch.randn(*shape).to(dtype)


CASES = {
    # elementwise, unary and binary, with scalars and broadcasting
    "unary": (lambda x: (x.neg(), x.abs(), x.exp(), torch.tanh(x), torch.sigmoid(x), x.relu(),
                         torch.erf(x), torch.sin(x), torch.cos(x), x.floor(), x.ceil(),
                         x.round(), torch.trunc(x)), [r(3, 5)]),
    "positive_unary": (lambda x: (x.log(), x.sqrt(), x.rsqrt(), x.reciprocal(), torch.log1p(x),
                                  x ** 0.5, x ** 3), [torch.rand(4, 4) + 0.5]),
    "binary": (lambda x, y: (x + y, x - 2 * y, x * y, x / y, torch.maximum(x, y),
                             torch.minimum(x, y), x + 1.5, 3 - x, x * 2, torch.pow(x.abs(), y),
                             torch.add(x, y, alpha=3)), [r(4, 6), r(6)]),
    "integer": (lambda a, b: (a + b, a * 3, torch.remainder(a, b), torch.div(a, b),
                              torch.div(a, b, rounding_mode="floor"), a.float() / 2),
                [torch.randint(-20, 20, (5,)), torch.randint(1, 6, (5,))]),
    "compare_where": (lambda x, y: (torch.where(x > y, x, y), x == y, x != 0.5, x <= y,
                                    torch.where(x < 0, 0.0, x), x.masked_fill(x > 1, -1.0),
                                    torch.logical_and(x > 0, y > 0), ~(x > 0), torch.isnan(x)),
                      [r(3, 4), r(3, 4)]),
    "activations": (lambda x: (F.gelu(x), F.gelu(x, approximate="tanh"), F.silu(x),
                               F.hardtanh(x), F.leaky_relu(x, 0.1), torch.clamp(x, -0.5, 0.7),
                               torch.clamp(x, min=0.0), F.hardswish(x), F.hardsigmoid(x)),
                    [r(2, 8)]),
    # reductions
    "reductions": (lambda x: (x.sum(), x.sum(1), x.mean(0, keepdim=True), x.amax(1),
                              x.amin((0, 1)), x.max(1)[0], x.max(1)[1], x.argmax(1), x.argmax(),
                              x.var(1), x.std(0), torch.cumsum(x, 1),
                              torch.logsumexp(x, 1)), [r(5, 7)]),
    "bool_reductions": (lambda x: ((x > 0).any(1), (x > -3).all(), (x > 0).sum(1)), [r(4, 3)]),
    # matmul family
    "matmul": (lambda a, b, c, bias: (a @ b, torch.bmm(c, c.transpose(1, 2)),
                                      torch.addmm(bias, a, b), F.linear(a, b.t(), bias),
                                      torch.matmul(c, b[:, :3]), torch.mv(a, b[:, 0])),
               [r(4, 6), r(6, 5), r(2, 3, 6), r(5)]),
    # convolution and pooling
    "conv_pool": (lambda x, w, b, w1: (F.conv2d(x, w, b, stride=2, padding=1),
                                       F.conv2d(x, w[:, :1].repeat(1, 1, 1, 1)[:3], None,
                                                groups=3, dilation=2, padding=2),
                                       F.max_pool2d(x, 3, 2, 1), F.avg_pool2d(x, 2),
                                       F.avg_pool2d(x, 3, 1, 1, count_include_pad=False),
                                       F.adaptive_avg_pool2d(x, 1), F.adaptive_avg_pool2d(x, 4),
                                       F.conv1d(x[:, :, 0], w1, padding=1)),
                  [r(2, 3, 8, 8), r(4, 3, 3, 3), r(4), r(5, 3, 3)]),
    # views and layout
    "layout": (lambda x: (x.view(6, 4), x.reshape(-1), x.permute(2, 0, 1), x.transpose(0, 2),
                          x.t() if x.dim() == 2 else x[0].t(), x[:, 1:3], x[..., ::2], x[1],
                          x[:, -1], x.unsqueeze(1).expand(2, 5, 3, 4), x.flatten(1),
                          x[:1].squeeze(0), torch.cat([x, x * 2], 1), torch.stack([x, x], 0),
                          *torch.split(x, [1, 2], 1), *x.chunk(2, 2), *x.unbind(0),
                          F.pad(x, (1, 2)), F.pad(x, (0, 0, 1, 1), value=3.0),
                          x.contiguous(), x.clone()), [r(2, 3, 4)]),
    "as_strided": (lambda x: (torch.as_strided(x, (3, 3), (1, 3)),
                              torch.as_strided(x, (2, 2), (4, 1), 2),
                              torch.as_strided(x, (), (), 5) * 2), [r(4, 4)]),
    # indexing
    "indexing": (lambda x, i, j: (torch.index_select(x, 0, i), torch.index_select(x, 1, j),
                                  torch.gather(x, 1, j.view(1, -1).expand(5, -1)),
                                  x[i], x[:, j], x[i, j[:3]], F.embedding(i, x)),
                 [r(5, 6), torch.tensor([4, 0, 2]), torch.tensor([5, 1, 1, 0])]),
    # casts and creation
    "casts": (lambda x, n: (x.to(torch.float64) * 2, x.half().float(), x.bfloat16(),
                            x.int(), n.float() + x[0, :1], (x > 0).long(), n.to(torch.int32),
                            x.to(torch.float16) + 1),
              [r(3, 4) * 10, torch.randint(-5, 5, (4,))]),
    "creation": (lambda x: (x + torch.zeros(3, 4), torch.ones_like(x) * 2,
                            torch.full((2, 3), 7.5), torch.arange(6) * 2,
                            torch.arange(1, 10, 3), torch.arange(0.0, 1.0, 0.25) + x[0, 0],
                            x + torch.scalar_tensor(2.0), torch.ones(2) * 3,
                            torch.zeros(3, dtype=torch.int64) + 5), [r(3, 4)]),
    # normalizations
    "softmax_norm": (lambda x, w, b: (torch.softmax(x, -1), torch.log_softmax(x, 1),
                                      torch.softmax(x, 0),
                                      F.layer_norm(x, (6,), w, b, 1e-5),
                                      F.layer_norm(x, (6,)),
                                      torch.ops.aten.native_layer_norm(x, [6], w, b, 1e-5)[1],
                                      torch.ops.aten.native_layer_norm(x, [6], w, b, 1e-5)[2]),
                     [r(4, 6), r(6), r(6)]),
    "batch_norm": (lambda x, rm, rv, w, b: (F.batch_norm(x, rm, rv, w, b, False, 0.1, 1e-5),
                                             F.batch_norm(x, None, None, w, b, True, 0.1, 1e-5)),
                   [r(4, 3, 5, 5), r(3), torch.rand(3) + 0.5, r(3), r(3)]),
    "half_precision": (lambda x, y: (x * y + x, x.float().softmax(-1).half(), x.sum(1),
                                     torch.where(x > 0, x, y) * 0.1), [r(4, 8, dtype=torch.float16),
                                                r(4, 8, dtype=torch.float16)]),
    "bfloat16": (lambda x, y: (x * y - x, x @ y.t(), x.relu().sum(0)),
                 [r(4, 8, dtype=torch.bfloat16), r(4, 8, dtype=torch.bfloat16)]),
    "core_more": (lambda x, i: (x.flip(1), x.flip((0, 1)), torch.log2(x.abs() + 1),
                                torch.log10(x.abs() + 1), torch.sinh(x), torch.cosh(x),
                                torch.tan(x * 0.5), F.elu(x), torch.diagonal(x),
                                torch.diagonal(x, 1), torch.diagonal(x, -1),
                                F.embedding(i, x.t()), x.tril(), x.triu(1), x.tril(-2)), [r(4, 5), torch.tensor([[0, 3], [4, 4]])]),
    "image_ops": (lambda x, w, b: (F.interpolate(x, scale_factor=2, mode="nearest"),
                                   F.interpolate(x, size=(5, 3), mode="nearest"),
                                   F.group_norm(x, 2, w, b), F.avg_pool1d(x[:, :, 0], 2),
                                   F.adaptive_avg_pool1d(x[:, :, 1], 3),
                                   F.pad(x, (1, 2, 2, 1), mode="reflect"),
                                   F.pad(x, (2, 1, 1, 0), mode="replicate"),
                                   F.pad(x[:, :, 0], (2, 1), mode="reflect"),
                                   F.max_pool2d(x, 3, 2, ceil_mode=True),
                                   F.max_pool2d(x[:, :, :5, :5], 2, 2, 0, ceil_mode=True),
                                   F.adaptive_avg_pool2d(x, (4, 5)),
                                   F.adaptive_avg_pool2d(x[:, :, :2, :2], 3),
                                   torch.roll(x, 2, 3), torch.roll(x, (-1, 3), (1, 2)),
                                   torch.roll(x, 5),
                                   F.interpolate(x, scale_factor=2, mode="bilinear"),
                                   F.interpolate(x, size=(9, 4), mode="bilinear",
                                                 align_corners=True),
                                   F.interpolate(x, scale_factor=1.5, mode="bilinear")),
                  [r(2, 4, 6, 6), r(4), r(4)]),
    "scatter": (lambda x, i, src: (
        torch.scatter_add(x, 1, i, src), torch.scatter_add(x, 0, i[:2, :3], src),
        torch.scatter(x, 1, torch.tensor([[3, 0], [1, 2], [0, 3]]), src[:, :2]),
        torch.scatter(x, 1, torch.tensor([[2], [0], [1]]), 7.5),
        x.index_add(0, torch.tensor([2, 0, 2]), src[:3, :4]),
        x.index_add(1, torch.tensor([3, 3]), src[:, :2], alpha=2),
        x.index_put((torch.tensor([2, -3]),), src[:2, :4], accumulate=True),
        x.index_put((torch.tensor([[0], [2]]),), torch.tensor(1.5)),
        torch.zeros(5).index_put((torch.tensor([4, 1, 4]),), torch.tensor([1.0, 2.0, 3.0]),
                                 accumulate=True)),
                [r(3, 4), torch.tensor([[0, 1, 1, 3], [2, 2, 0, 0], [3, 0, 1, 2]]), r(3, 5)]),
    "losses": (lambda x, y, t: (F.mse_loss(x, y), F.mse_loss(x, y, reduction="sum"),
                                F.nll_loss(torch.log_softmax(x, 1), t),
                                F.cross_entropy(x, t)),
               [r(4, 5), r(4, 5), torch.tensor([1, 0, 4, 2])]),
}


def _inductor_pooling(x):
    from inductor_prims import offsets_to_indices, with_offsets
    outs = []
    for kernel, stride, padding, dilation, ceil in (([3, 3], [2, 2], [1, 1], [1, 1], False),
                                                   ([2, 3], [1, 2], [0, 1], [2, 1], False),
                                                   ([3, 3], [2, 2], [0, 0], [1, 1], True)):
        values, offsets = with_offsets(x, kernel, stride, padding, dilation, ceil)
        outs += [values, offsets, offsets_to_indices(offsets, kernel, list(x.shape[-2:]), stride,
                                                     padding, dilation)]
    return tuple(outs)


CASES["inductor_pooling"] = (_inductor_pooling, [r(2, 3, 9, 10)])


class ConvertOps(unittest.TestCase):
    def check_case(self, name, fn, inputs):
        gm = make_fx(fn)(*inputs)
        with torch.no_grad():
            want = fn(*inputs)
        want = list(want) if isinstance(want, (tuple, list)) else [want]
        path = reprokit_torch.save(gm, inputs, new_dir(name), judge=False)
        check = reprokit("check", path)
        self.assertEqual(check.returncode, 0, "%s: reprokit check exit %d\n%s%s\n%s" % (
            name, check.returncode, check.stdout, check.stderr,
            read(os.path.join(path, "graph.rk"))))
        self.assertIn("verdict:   pass", check.stdout)
        got = run_outputs(path)
        self.assertEqual(len(got), len(want), name)
        for k, (g, w) in enumerate(zip(got, want)):
            assert_close(self, g, w, "%s output %d" % (name, k))
        return path


for _name, (_fn, _inputs) in CASES.items():
    def _test(self, name=_name, fn=_fn, inputs=_inputs):
        self.check_case(name, fn, inputs)
    setattr(ConvertOps, "test_" + _name, _test)


class Bundles(unittest.TestCase):
    def test_bundle_records_torch_and_inputs(self):
        x = r(3, 70)  # more than 64 elements: a blob constant besides the input blobs
        gm = make_fx(lambda x: x * torch.arange(210.0).view(3, 70))(x)
        path = reprokit_torch.save(gm, [x], new_dir("records"), judge=False,
                                   inner_backend="inductor", stage="aot",
                                   graph_kind="forward")
        doc = load_json(os.path.join(path, "repro.json"))
        src = doc["provenance"]["source"]
        self.assertEqual(src["torch_version"], torch.__version__)
        self.assertEqual(src["inner_backend"], "inductor")
        self.assertEqual(src["device"], "cpu")
        self.assertIn("aten.mul.Tensor", src["aten_ops"])
        self.assertTrue(doc["provenance"]["command_line"])
        self.assertEqual(doc["inputs"][0]["source"], "blob")
        self.assertEqual(doc["inputs"][0]["byte_size"], 3 * 70 * 4)
        self.assertFalse(doc["expected"]["judged"])
        self.assertIn("sha256:", read(os.path.join(path, "graph.rk")))
        got = run_outputs(path)
        assert_close(self, got[0], x * torch.arange(210.0).view(3, 70), "blob constant")

    def test_a_pool_is_started_for_the_judgement_and_left_warm(self):
        import tempfile
        from reprokit_torch import bundle as bundle_mod
        pool_dir = tempfile.mkdtemp(prefix="rkpool-")  # a Unix socket's path is short
        old = dict(os.environ)
        os.environ["REPROKIT_BACKEND_POOL_DIR"] = pool_dir
        os.environ.pop("REPROKIT_BACKEND_POOL", None)  # "off" in the test environment
        try:
            x = r(4, 6)
            gm = make_fx(lambda x: torch.relu(x) * 2)(x)
            path = reprokit_torch.save(gm, [x], new_dir("pooled"), backend="reprokit", pool=2,
                                       options=["faults=relu:accuracy"])
            self.assertIn(("reprokit", "cpu"), bundle_mod._POOLS_STARTED)
            doc = load_json(os.path.join(path, "repro.json"))
            self.assertTrue(doc["expected"]["judged"], doc["expected"])
            status = reprokit("backend-pool", "status", "reprokit", "--json")
            self.assertEqual(status.returncode, 0, status.stderr)
            counters = json.loads(status.stdout)
            self.assertGreaterEqual(counters["served"], 1, counters)  # the judgement used it
        finally:
            reprokit("backend-pool", "stop", "reprokit")
            os.environ.clear()
            os.environ.update(old)
            bundle_mod._POOLS_STARTED.discard(("reprokit", "cpu"))

    def test_scalar_and_huge_constants(self):
        convert_mod = sys.modules["reprokit_torch.convert"]  # the module, not the function
        big = torch.randn(8, 16)

        class Consts(nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("s", torch.tensor(2.5))  # 0-d
                self.register_buffer("big", big)

            def forward(self, x):
                return x * self.s + self.big
        old = convert_mod.LIFT_ELEMENTS
        convert_mod.LIFT_ELEMENTS = 100  # as if 8x16 were past reprokit's inline limit
        try:
            x = r(8, 16)
            path = reprokit_torch.save(torch.fx.symbolic_trace(Consts()), [x], new_dir("consts"),
                                       judge=False)
        finally:
            convert_mod.LIFT_ELEMENTS = old
        with open(os.path.join(path, "repro.json")) as fh:
            doc = json.load(fh)
        self.assertEqual(len(doc["inputs"]), 2)
        self.assertEqual(doc["provenance"]["source"]["lifted_constants"],
                         [doc["inputs"][1]["name"]])
        self.assertEqual(doc["inputs"][1]["byte_size"], 8 * 16 * 4)
        with open(os.path.join(path, "graph.rk")) as fh:
            self.assertIn("dense<f32[]>[2.5]", fh.read())
        self.assertEqual(reprokit("check", path).returncode, 0)
        assert_close(self, run_outputs(path)[0], x * 2.5 + big, "constants")

    def test_stored_blocks_load_as_well(self):
        os.environ["REPROKIT_TORCH_STORED_BLOBS"] = "1"
        try:
            x = r(300, 300)  # 360,000 bytes: three raw blocks of at most 128 KiB
            path = reprokit_torch.save(make_fx(lambda x: x.exp())(x), [x], new_dir("stored"),
                                       judge=False)
        finally:
            del os.environ["REPROKIT_TORCH_STORED_BLOBS"]
        self.assertEqual(reprokit("store", "verify", "--root",
                                  os.path.join(path, "blobs")).returncode, 0)
        with open(os.path.join(path, "repro.json")) as fh:
            digest = json.load(fh)["inputs"][0]["sha256"]
        with open(os.path.join(path, "blobs", "cas", digest[:2], digest), "rb") as fh:
            stored = fh.read()
        self.assertEqual(len(stored), 16 + 14 + 3 * 3 + 360000)  # header, frame header, blocks
        assert_close(self, run_outputs(path)[0], x.exp(), "stored-block input")

    def test_judged_bundle_records_the_verdict_and_minifies(self):
        def f(x, w):
            h = torch.tanh(x @ w) + 1.0
            return (h.relu() * 2.0).sum(1), torch.sigmoid(h)
        x, w = r(4, 8), r(8, 8)
        gm = make_fx(f)(x, w)
        ok = reprokit_torch.save(gm, [x, w], new_dir("judged_pass"), reprokit=REPROKIT)
        doc = load_json(os.path.join(ok, "repro.json"))
        self.assertTrue(doc["expected"]["judged"])
        self.assertEqual(doc["expected"]["kind"], "pass")
        bug = reprokit_torch.save(gm, [x, w], new_dir("judged_bug"), reprokit=REPROKIT,
                                  options=["faults=relu:accuracy"])
        doc = load_json(os.path.join(bug, "repro.json"))
        self.assertTrue(doc["expected"]["judged"])
        self.assertEqual(doc["expected"]["kind"], "accuracy")
        self.assertIn("relu", doc["expected"]["signature"])
        self.assertEqual(doc["compile_options"]["text"], "faults=relu:accuracy")
        self.assertIn("relu", read(os.path.join(bug, "README.md")))
        out = new_dir("judged_min")
        mini = reprokit("minify", bug, "-o", out)
        self.assertEqual(mini.returncode, 0, mini.stdout + mini.stderr)
        small = read(os.path.join(out, "graph.rk"))
        self.assertIn("relu(", small)
        self.assertNotIn("sigmoid(", small)
        big = read(os.path.join(bug, "graph.rk"))
        self.assertLess(small.count(" = "), big.count(" = "))
        # A standalone repro.py of the minimal bundle for Inductor: on torch 1.13 (no
        # torch.compile) it runs and judges the eager part, then says it cannot test (2).
        standalone = new_dir("standalone")
        export = reprokit("export", out, "--standalone", standalone, "--target", "torch_inductor")
        self.assertEqual(export.returncode, 0, export.stdout + export.stderr)
        script = subprocess.run([sys.executable, "repro.py"], cwd=standalone,
                                capture_output=True, text=True)
        self.assertIn("eager: output", script.stdout)
        self.assertIn(": ok", script.stdout)
        self.assertEqual(script.returncode, 0 if hasattr(torch, "compile") else 2,
                         script.stdout + script.stderr)
        # bisect: the failing option, and the first node that diverges.
        options = reprokit("bisect", bug, "--options")
        self.assertEqual(options.returncode, 0, options.stdout + options.stderr)
        self.assertIn("faults=relu:accuracy", options.stdout)
        nodes = reprokit("bisect", bug, "--nodes")
        self.assertEqual(nodes.returncode, 0, nodes.stdout + nodes.stderr)
        self.assertIn("relu", nodes.stdout)

    def test_rewrites_a_bundle_but_not_other_folders(self):
        x = r(2)
        gm = make_fx(lambda x: x + 1)(x)
        path = reprokit_torch.save(gm, [x], new_dir("again"), judge=False)
        reprokit_torch.save(gm, [x], path, judge=False)  # replaces its own bundle
        other = new_dir("other")
        os.makedirs(other)
        with open(os.path.join(other, "keep.txt"), "w") as fh:
            fh.write("mine")
        with self.assertRaises(FileExistsError):
            reprokit_torch.save(gm, [x], other, judge=False)


def convert_input_blob(path, doc, i):
    from reprokit_torch import store
    raw = store.read_blob(os.path.join(path, "blobs"), doc["inputs"][i]["sha256"])
    return torch.frombuffer(bytearray(raw), dtype=torch.float32).view(doc["inputs"][i]["shape"])


class GraphForms(unittest.TestCase):
    def test_symbolic_sizes_are_specialized_and_recorded(self):
        def f(x, y):
            return (x.view(x.shape[0] * x.shape[1]) + y.sum()).relu(), x.new_zeros(x.shape[1])
        x, y = r(3, 4), r(5)
        gm = make_fx(f, tracing_mode="symbolic")(x, y)
        self.assertTrue(any("sym_size" in str(n.target) for n in gm.graph.nodes))
        path = reprokit_torch.save(gm, [x, y], new_dir("symbolic"), judge=False)
        with open(os.path.join(path, "repro.json")) as fh:
            sizes = json.load(fh)["provenance"]["source"]["specialized_sizes"]
        self.assertEqual(sorted(sizes.values()), [3, 4, 12])
        # .item() is specialized the same way, to the value of this run
        g = torch.fx.Graph()  # make_fx on torch 1.13 cannot trace .item(): built by hand
        xn = g.placeholder("x")
        total = g.call_function(torch.ops.aten.sum.default, (xn,))
        item = g.call_function(torch.ops.aten._local_scalar_dense.default, (total,))
        g.output(g.call_function(torch.ops.aten.mul.Tensor, (xn, item)))
        item_gm = torch.fx.GraphModule(torch.nn.Module(), g)
        item_path = reprokit_torch.save(item_gm, [x], new_dir("item"), judge=False)
        specialized = load_json(os.path.join(item_path, "repro.json"))["provenance"]["source"][
            "specialized_sizes"]
        self.assertAlmostEqual(list(specialized.values())[0], float(x.sum()), places=5)
        assert_close(self, run_outputs(item_path)[0], x * x.sum(), ".item() specialized")
        with open(os.path.join(path, "graph.rk")) as fh:
            self.assertIn("reshape(%x_1) {shape=[12]}", fh.read())
        got = run_outputs(path)
        assert_close(self, got[0], f(x, y)[0], "symbolic graph")

    def test_torch_level_graph_is_traced_to_aten_first(self):
        torch.manual_seed(4)
        model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
        traced = torch.fx.symbolic_trace(model)  # call_module nodes, as Dynamo's graphs have
        self.assertTrue(any(n.op == "call_module" for n in traced.graph.nodes))
        x = r(5, 4)
        path = reprokit_torch.save(traced, [x], new_dir("torch_level"), judge=False)
        self.assertEqual(reprokit("check", path).returncode, 0)
        with torch.no_grad():
            assert_close(self, run_outputs(path)[0], model(x), "traced module")

    def test_in_place_ops_are_functionalized_when_tracing(self):
        class InPlace(nn.Module):
            def forward(self, x):
                y = x.clone()
                y.mul_(2.0)
                y[0].add_(1.0)  # an in-place op on a view
                return y.relu_()
        traced = torch.fx.symbolic_trace(InPlace())
        x = r(3, 4)
        path = reprokit_torch.save(traced, [x], new_dir("in_place"), judge=False)
        with torch.no_grad():
            assert_close(self, run_outputs(path)[0], InPlace()(x), "functionalized")
        # An ATen graph with in-place ops is retraced functionalized...
        fn = lambda x: x.clone().add_(1.0).relu_()  # noqa: E731
        gm = make_fx(fn)(x)
        path = reprokit_torch.save(gm, [x], new_dir("in_place_aten"), judge=False)
        assert_close(self, run_outputs(path)[0], fn(x), "retraced")
        # ...and never converted as it is: refused, every one listed, not dropped.
        with self.assertRaises(reprokit_torch.UnsupportedOpsError) as caught:
            reprokit_torch.save(gm, [x], new_dir("in_place_raw"), judge=False, trace=False)
        self.assertIn("aten.add_.Tensor x1, first at node add_: in-place", str(caught.exception))
        self.assertIn("aten.relu_.default x1", str(caught.exception))

    def test_input_writes_become_outputs(self):
        def f(x, running):
            running.copy_(running * 0.9 + x.mean(0) * 0.1)  # as AOT updates a buffer
            return (x - running).relu()
        x, running = r(4, 3), r(3)
        before = running.clone()
        gm = make_fx(f)(x, running.clone())
        path = reprokit_torch.save(gm, [x, running], new_dir("input_write"), judge=False)
        self.assertTrue(torch.equal(running, before))  # the caller's tensor is untouched
        with open(os.path.join(path, "repro.json")) as fh:
            doc = json.load(fh)
        self.assertEqual(doc["provenance"]["source"]["output_positions"],
                         [0, "mutated:" + doc["inputs"][1]["name"]])
        got = run_outputs(path)
        new = before * 0.9 + x.mean(0) * 0.1
        assert_close(self, got[0], (x - new).relu(), "output after the write")
        assert_close(self, got[1], new, "the input's new value")
        self.assertTrue(torch.equal(convert_input_blob(path, doc, 1), before))

    def test_coverage_claims_match_the_handlers(self):
        from reprokit_torch import aten_ops, coverage
        names, _ = coverage.core_ops()
        self.assertGreater(len(names), 150)
        mapped = [n for n in names if coverage.status(n) == "mapped"]
        self.assertTrue(all(n in aten_ops.HANDLERS for n in mapped))
        self.assertIn("aten.convolution.default", mapped)
        self.assertEqual(coverage.status("aten.sort.default"), "unsupported")
        # torch >= 2.1 tags its core ops: read from the schemas (a stand-in tag here).
        real_tag = torch.Tag

        class Tags:
            core = torch.Tag.inplace_view
        torch.Tag = Tags
        try:
            tagged, source = coverage.core_ops()
        finally:
            torch.Tag = real_tag
        self.assertIn("Tag.core", source)
        self.assertIn("aten.transpose_.default", tagged)


def sdpa_reference(q, k, v, mask, causal, scale):
    scores = q @ k.transpose(-2, -1) * scale
    if causal:
        scores = scores.masked_fill(torch.ones(q.shape[-2], k.shape[-2]).tril() == 0,
                                    float("-inf"))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool \
            else scores + mask
    probs = torch.softmax(scores, -1)
    return probs @ v, torch.logsumexp(scores, -1)


class Attention(unittest.TestCase):
    """torch 1.13 has no scaled_dot_product_attention: the graph calls a stand-in under
    the ATen names torch 2.x uses (it returns the math's values as torch's), so the
    handler is tested against the math."""

    def run_case(self, name, args, kwargs, mask, causal, outputs):
        torch.manual_seed(6)
        q, k, v = r(2, 3, 5, 4), r(2, 3, 6, 4), r(2, 3, 6, 4)
        if causal:
            k, v = k[:, :, :5], v[:, :, :5]
        want = sdpa_reference(q, k, v, mask, causal, kwargs.get("scale", 0.5))

        def stand_in(*a, **kw):
            return want if outputs > 1 else want[0]
        stand_in.__module__, stand_in.__name__ = "aten", name
        g = torch.fx.Graph()
        nodes = [g.placeholder(n) for n in "qkv"]
        m = g.placeholder("mask") if mask is not None else None
        call = g.call_function(stand_in, tuple(nodes) + tuple(m if a == "MASK" else a
                                                               for a in args),
                               {key: (m if val == "MASK" else val) for key, val in kwargs.items()})
        if outputs > 1:
            g.output(tuple(g.call_function(operator.getitem, (call, i)) for i in range(outputs)))
        else:
            g.output(call)
        gm = torch.fx.GraphModule(torch.nn.Module(), g)
        inputs = [q, k, v] + ([mask] if mask is not None else [])
        path = reprokit_torch.save(gm, inputs, new_dir("sdpa"), judge=False, trace=False)
        self.assertEqual(reprokit("check", path).returncode, 0)
        got = run_outputs(path)
        assert_close(self, got[0], want[0], name + " output")
        if outputs > 1:
            assert_close(self, got[1], want[1], name + " logsumexp")

    def test_public_op_with_float_mask(self):
        self.run_case("scaled_dot_product_attention.default", ("MASK", 0.0, False),
                      {"scale": 0.5}, r(5, 6), False, 1)

    def test_cpu_flash_form_causal_with_logsumexp(self):
        self.run_case("_scaled_dot_product_flash_attention_for_cpu.default", (0.0, True),
                      {"scale": 0.5}, None, True, 2)

    def test_efficient_form_with_bool_mask(self):
        mask = torch.rand(2, 3, 5, 6) > 0.3
        mask[..., 0] = True
        self.run_case("_scaled_dot_product_efficient_attention.default",
                      ("MASK", True, 0.0, False), {"scale": 0.5}, mask, False, 2)

    def test_multi_head_attention_fast_path(self):
        torch.manual_seed(7)
        mha = nn.MultiheadAttention(8, 2, batch_first=True).eval()
        x = r(2, 5, 8)
        for need_weights in (False, True):
            with torch.no_grad():
                want = mha(x, x, x, need_weights=need_weights)
                gm = make_fx(lambda x: mha(x, x, x, need_weights=need_weights))(x)
            ops = {str(n.target) for n in gm.graph.nodes}
            self.assertIn("aten._native_multi_head_attention.default", ops)
            path = reprokit_torch.save(gm, [x], new_dir("mha"), judge=False)
            self.assertEqual(reprokit("check", path).returncode, 0)
            got = run_outputs(path)
            assert_close(self, got[0], want[0], "attention output")
            if need_weights:
                assert_close(self, got[1], want[1], "averaged attention weights")

    def test_dropout_is_refused(self):
        with self.assertRaises(reprokit_torch.UnsupportedOpsError) as caught:
            self.run_case("scaled_dot_product_attention.default", (None, 0.1, False),
                          {"scale": 0.5}, None, False, 1)
        self.assertIn("dropout", str(caught.exception))


class TrainingGraphs(unittest.TestCase):
    def aot_graphs(self, model, inputs, decompositions=None):
        from functorch.compile import aot_function, make_boxed_func
        graphs = {}

        def keep(kind):
            def compiler(gm, example_inputs):
                graphs[kind] = gm
                return make_boxed_func(gm.forward)
            return compiler
        params = [p for p in model.parameters()]
        names = [n for n, _ in model.named_parameters()]

        def f(*args):
            ps, xs = args[:len(params)], args[len(params):]
            out = torch.nn.utils.stateless.functional_call(model, dict(zip(names, ps)), xs)
            return F.mse_loss(out, torch.zeros_like(out))
        compiled = aot_function(f, keep("forward"), keep("backward"),
                                decompositions=decompositions or {})
        leaves = [p.detach().clone().requires_grad_(True) for p in params]
        loss = compiled(*leaves, *inputs)
        loss.backward()
        return graphs, leaves, loss

    def test_mlp_forward_and_backward(self):
        torch.manual_seed(1)
        model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 16), nn.GELU(),
                              nn.LayerNorm(16), nn.Linear(16, 4))
        x = r(6, 8)
        graphs, leaves, loss = self.aot_graphs(model, [x])
        # The forward graph on the real parameters and input.
        fw_inputs = [p.detach() for p in leaves] + [x]
        with torch.no_grad():
            fw_out = graphs["forward"](*fw_inputs)
        fw = reprokit_torch.save(graphs["forward"], fw_inputs, new_dir("mlp_fw"), judge=False,
                                 graph_kind="forward", stage="aot")
        check = reprokit("check", fw)
        self.assertEqual(check.returncode, 0, check.stdout + check.stderr)
        got = run_outputs(fw)
        assert_close(self, got[0], fw_out[0], "forward loss")
        assert_close(self, got[0], loss.detach(), "forward loss vs the real run")
        # The backward graph: saved activations and the incoming gradient.
        bw_inputs = [t.detach() for t in fw_out[1:]] + [torch.ones(())]
        with torch.no_grad():
            bw_out = [t for t in graphs["backward"](*bw_inputs) if t is not None]
        bw = reprokit_torch.save(graphs["backward"], bw_inputs, new_dir("mlp_bw"), judge=False,
                                 graph_kind="backward", stage="aot")
        check = reprokit("check", bw)
        self.assertEqual(check.returncode, 0, check.stdout + check.stderr)
        got = run_outputs(bw)
        self.assertEqual(len(got), len(leaves))
        for k, (g, w, leaf) in enumerate(zip(got, bw_out, leaves)):
            assert_close(self, g, w, "backward output %d" % k)
            assert_close(self, g, leaf.grad, "gradient of parameter %d" % k)
        # A planted fault in relu, which the forward graph has: caught.
        fault = reprokit("check", fw, "--opt", "faults=relu:accuracy")
        self.assertEqual(fault.returncode, 1, fault.stdout + fault.stderr)
        self.assertIn("accuracy", fault.stdout)
        # The forward graph with `grad` marks: reprokit differentiates it and judges the
        # gradients too.
        marked = reprokit_torch.save(graphs["forward"], fw_inputs, new_dir("mlp_fw_grad"),
                                     judge=False, grad_inputs=range(len(leaves)))
        self.assertIn(" grad", read(os.path.join(marked, "graph.rk")))
        check = reprokit("check", marked)
        self.assertEqual(check.returncode, 0, check.stdout + check.stderr)
        self.assertIn("grad(", check.stdout)


class TinyLM(nn.Module):
    """Embedding, one attention block with layer norms, GELU MLP, tied head."""

    def __init__(self, vocab=11, dim=8, heads=2):
        super().__init__()
        self.heads = heads
        self.wte = nn.Embedding(vocab, dim)
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.fc, self.out = nn.Linear(dim, 4 * dim), nn.Linear(4 * dim, dim)

    def forward(self, ids):
        b, t = ids.shape
        x = self.wte(ids)
        q, k, v = self.qkv(self.ln1(x)).split(x.shape[-1], dim=2)
        shape = (b, t, self.heads, x.shape[-1] // self.heads)
        q, k, v = (z.view(shape).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) / math.sqrt(shape[-1])
        mask = torch.ones(t, t).tril().view(1, 1, t, t)
        att = torch.softmax(att.masked_fill(mask == 0, float("-inf")), dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, -1)
        x = x + self.proj(y)
        x = x + self.out(F.gelu(self.fc(self.ln2(x))))
        return x @ self.wte.weight.t()


class TrainingBlocks(unittest.TestCase):
    aot_graphs = TrainingGraphs.aot_graphs

    def test_tiny_lm_forward_and_backward(self):
        torch.manual_seed(2)
        model = TinyLM()
        ids = torch.tensor([[1, 4, 2, 9, 0], [3, 3, 7, 10, 5]])
        graphs, leaves, loss = self.aot_graphs(model, [ids])
        fw_inputs = [p.detach() for p in leaves] + [ids]
        with torch.no_grad():
            fw_out = graphs["forward"](*fw_inputs)
        fw = reprokit_torch.save(graphs["forward"], fw_inputs, new_dir("lm_fw"), judge=False)
        check = reprokit("check", fw)
        self.assertEqual(check.returncode, 0, check.stdout + check.stderr)
        assert_close(self, run_outputs(fw)[0], loss.detach(), "tiny LM loss")
        bw_inputs = [t.detach() for t in fw_out[1:]] + [torch.ones(())]
        bw = reprokit_torch.save(graphs["backward"], bw_inputs, new_dir("lm_bw"), judge=False)
        check = reprokit("check", bw)
        self.assertEqual(check.returncode, 0, check.stdout + check.stderr)
        got = run_outputs(bw)
        self.assertEqual(len(got), len(leaves))
        for k, (g, leaf) in enumerate(zip(got, leaves)):
            assert_close(self, g, leaf.grad, "tiny LM gradient %d" % k)


class TinyCNN(nn.Module):
    """Strided, padded, grouped and dilated convolutions, batch norm, three kinds of pooling."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.gn = nn.GroupNorm(2, 8)
        self.c2 = nn.Conv2d(8, 8, 3, padding=2, dilation=2, groups=2, bias=False)
        self.c3 = nn.Conv2d(8, 6, 3, stride=2, padding=2)
        self.fc = nn.Linear(24, 3)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn(self.c1(x))), 3, 2, 1, ceil_mode=True)
        x = F.avg_pool2d(torch.tanh(self.gn(self.c2(x))), 3, 1, 1, count_include_pad=False)
        x = F.adaptive_avg_pool2d(self.c3(x), 2) + F.adaptive_avg_pool2d(x, 2)[:, :6] \
            + F.adaptive_avg_pool2d(x, 3)[:, 1:7, ::2, 1:]  # even and uneven windows
        x = x + x[:, :, 1].unsqueeze(2)  # select's gradient
        return self.fc(x.flatten(1))


class CNNTraining(unittest.TestCase):
    aot_graphs = TrainingGraphs.aot_graphs

    def test_tiny_cnn_forward_and_backward(self):
        torch.manual_seed(5)
        model = TinyCNN()
        x = r(2, 3, 17, 17)
        graphs, leaves, loss = self.aot_graphs(model, [x])
        fw_inputs = [p.detach() for p in leaves] + [x]
        with torch.no_grad():
            fw_out = graphs["forward"](*fw_inputs)
        fw = reprokit_torch.save(graphs["forward"], fw_inputs, new_dir("cnn_fw"), judge=False)
        check = reprokit("check", fw)
        self.assertEqual(check.returncode, 0, check.stdout + check.stderr)
        got = run_outputs(fw)
        assert_close(self, got[0], loss.detach(), "tiny CNN loss")
        for k, (g, w) in enumerate(zip(got[1:], fw_out[1:])):
            assert_close(self, g, w, "saved for backward %d" % k)  # max_pool2d's indices too
        bw_inputs = [t.detach() for t in fw_out[1:]] + [torch.ones(())]
        bw = reprokit_torch.save(graphs["backward"], bw_inputs, new_dir("cnn_bw"), judge=False)
        with open(os.path.join(bw, "repro.json")) as fh:
            ops = json.load(fh)["provenance"]["source"]["aten_ops"]
        for op in ("aten.convolution_backward.default", "aten.native_batch_norm_backward.default",
                   "aten.max_pool2d_with_indices_backward.default",
                   "aten.avg_pool2d_backward.default", "aten._adaptive_avg_pool2d_backward.default",
                   "aten.slice_backward.default", "aten.select_backward.default",
                   "aten.native_group_norm_backward.default"):
            self.assertIn(op, ops)
        check = reprokit("check", bw)
        self.assertEqual(check.returncode, 0, check.stdout + check.stderr)
        got = run_outputs(bw)
        self.assertEqual(len(got), len(leaves))
        for k, (g, leaf) in enumerate(zip(got, leaves)):
            assert_close(self, g, leaf.grad, "tiny CNN gradient %d" % k)


class Unsupported(unittest.TestCase):
    def test_every_unsupported_op_is_listed(self):
        def f(x):
            a = torch.cumprod(x, 1)
            b = torch.cumprod(x * 2, 0)
            v, i = torch.sort(x, 1)
            return a + b + v, torch.fmod(x, 0.3)
        x = r(3, 4)
        gm = make_fx(f)(x)
        with self.assertRaises(reprokit_torch.UnsupportedOpsError) as caught:
            reprokit_torch.save(gm, [x], new_dir("unsupported"), judge=False)
        err = caught.exception
        ops = {op: (count, first) for op, count, first, _ in err.ops}
        self.assertEqual(ops["aten.cumprod.default"], (2, "cumprod"))
        self.assertIn("aten.sort.default", ops)
        self.assertIn("aten.fmod.Scalar", ops)
        self.assertIn("aten.cumprod.default x2, first at node cumprod", str(err))
        self.assertEqual(ops["aten.sort.default"], (1, "sort"))
        self.assertNotIn("aten.mul.Tensor", ops)  # supported ops are not listed

    def test_ops_after_a_refused_one_are_listed_too(self):
        def f(x):
            y = torch.cumprod(x, 0)  # everything after depends on it
            return torch.fmod(torch.sort(y, 1)[0], 0.5) + torch.fmod(y, 0.25)
        x = r(3, 4)
        with self.assertRaises(reprokit_torch.UnsupportedOpsError) as caught:
            reprokit_torch.save(make_fx(f)(x), [x], new_dir("chained"), judge=False)
        ops = {op: count for op, count, _, _ in caught.exception.ops}
        self.assertEqual(ops, {"aten.cumprod.default": 1, "aten.sort.default": 1,
                               "aten.fmod.Scalar": 2})

    def test_scatter_with_repeated_indices_is_refused(self):
        x, src = r(2, 3), r(2, 3)
        gm = make_fx(lambda x, s: torch.scatter(x, 1, torch.tensor([[0, 0, 1], [2, 1, 0]]), s))(
            x, src)
        with self.assertRaises(reprokit_torch.UnsupportedOpsError) as caught:
            reprokit_torch.save(gm, [x, src], new_dir("scatter_dup"), judge=False)
        self.assertIn("repeated indices", str(caught.exception))

    def test_refused_uses_name_the_reason(self):
        x = r(1, 2, 5, 5)
        gm = make_fx(lambda x: F.conv_transpose2d(x, torch.ones(2, 3, 3, 3)))(x)
        with self.assertRaises(reprokit_torch.UnsupportedOpsError) as caught:
            reprokit_torch.save(gm, [x], new_dir("transposed"), judge=False)
        self.assertIn("transposed convolution", str(caught.exception))

    def test_random_ops_are_refused_unless_recorded(self):
        x = r(4, 4)
        gm = make_fx(lambda x: x + torch.rand(4, 4))(x)
        with self.assertRaises(reprokit_torch.UnsupportedOpsError) as caught:
            reprokit_torch.save(gm, [x], new_dir("random"), judge=False)
        self.assertIn("random", str(caught.exception))
        path = reprokit_torch.save(gm, [x], new_dir("random_inputs"), judge=False,
                                   random="inputs")
        doc = load_json(os.path.join(path, "repro.json"))
        self.assertEqual(len(doc["inputs"]), 2)
        self.assertEqual(reprokit("check", path).returncode, 0)


if __name__ == "__main__":
    unittest.main()
