"""The capturing backend's logic on torch 1.13 (no torch.compile there).

GraphCapture is driven as torch.compile's AOT stage drives it: make_fx and
AOT-autograd graphs handed to fake inner compilers that fail to compile, fail
to run, or compute a wrong relu (as Inductor's planted bug does). Also the
accuracy rule, the fp64 graph and the environment switch's parsing.
"""

import copy
import io
import json
import os
import unittest

import torch
import torch.nn as nn
import torch.nn.functional as F

from rk_testutil import REPROKIT, make_fx, new_dir, reprokit, reprokit_torch
from reprokit_torch import accuracy, auto
from reprokit_torch import capture as rb


def wrong_relu_compiler(gm, example_inputs):
    """A compiler whose relu is off by one on positive inputs."""
    gm = copy.deepcopy(gm)  # the checker's eager run must stay right
    for n in gm.graph.nodes:
        if n.op == "call_function" and n.target is torch.ops.aten.relu.default:
            n.target = bad_relu
    gm.recompile()
    return gm


def wrong_relu_compiler_inplace(gm, example_inputs):
    """wrong_relu_compiler for graphs that keep relu_ in place."""
    gm = copy.deepcopy(gm)
    for n in gm.graph.nodes:
        if n.op == "call_function" and n.target is torch.ops.aten.relu_.default:
            n.target = bad_relu
    gm.recompile()
    return gm


def bad_relu(x):
    return torch.relu(x) + (x > 0).to(x.dtype)


def wrong_mm_compiler(gm, example_inputs):
    """A compiler whose matrix products are 1% too large."""
    gm = copy.deepcopy(gm)
    for n in gm.graph.nodes:
        if n.op == "call_function" and n.target is torch.ops.aten.mm.default:
            n.target = bad_mm
    gm.recompile()
    return gm


def bad_mm(a, b):
    return torch.mm(a, b) * 1.01


def failing_compiler(gm, example_inputs):
    raise RuntimeError("planted compile error")


def crashing_compiler(gm, example_inputs):
    def run(*args):
        raise RuntimeError("planted runtime error")
    return run


def mlp(x, w1, w2):
    return torch.relu(x @ w1) @ w2


class Capture(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)
        self.inputs = [torch.randn(4, 8), torch.randn(8, 16), torch.randn(16, 3)]
        self.gm = make_fx(mlp)(*self.inputs)
        self.log = io.StringIO()

    def capture(self, level="accuracy"):
        return rb.GraphCapture(new_dir("bugs"), level=level, stage="aot", inner_name="fake",
                               reprokit=REPROKIT, log=self.log)

    def test_accuracy_failure_is_saved(self):
        cap = self.capture()
        compiled = cap.compile(self.gm, self.inputs, wrong_relu_compiler, "forward")
        self.assertTrue(callable(compiled))  # the user's program goes on with it
        self.assertEqual(len(cap.saved), 1, self.log.getvalue())
        path, kind = cap.saved[0]
        self.assertEqual(kind, "accuracy")
        self.assertTrue(path.endswith("forward-0"))
        with open(os.path.join(path, "repro.json")) as f:
            doc = json.load(f)
        verdict = doc["provenance"]["source"]["torch_verdict"]
        self.assertEqual(verdict["kind"], "accuracy")
        self.assertGreater(verdict["outputs"][0]["rmse_result_vs_fp64"],
                           verdict["outputs"][0]["rmse_reference_vs_fp64"])
        self.assertEqual(doc["provenance"]["source"]["graph_kind"], "forward")
        self.assertEqual(doc["provenance"]["source"]["inner_backend"], "fake")
        # The graph is the one the compiler saw; reprokit's own relu fault reproduces on it.
        with open(os.path.join(path, "graph.rk")) as f:
            self.assertIn("relu(", f.read())
        self.assertEqual(reprokit("check", path).returncode, 0)
        self.assertEqual(reprokit("check", path, "--opt", "faults=relu:accuracy").returncode, 1)

    def test_the_graph_saved_is_the_one_before_the_compiler_rewrote_it(self):
        def rewriting_compiler(gm, example_inputs):
            for n in gm.graph.nodes:  # rewrites the graph it was given, as compilers do
                if n.op == "call_function" and n.target is torch.ops.aten.relu.default:
                    n.target = bad_relu
            gm.recompile()
            return gm
        cap = self.capture()
        gm = make_fx(mlp)(*self.inputs)
        cap.compile(gm, self.inputs, rewriting_compiler, "forward")
        self.assertEqual([k for _, k in cap.saved], ["accuracy"])
        with open(os.path.join(cap.saved[0][0], "graph.rk")) as f:
            self.assertIn("relu(", f.read())

    def test_good_compiler_saves_nothing(self):
        cap = self.capture()
        cap.compile(self.gm, self.inputs, lambda gm, ex: gm, "forward")
        self.assertEqual(cap.saved, [])

    def test_compile_level_ignores_wrong_results(self):
        cap = self.capture(level="compile")
        cap.compile(self.gm, self.inputs, wrong_relu_compiler, "forward")
        self.assertEqual(cap.saved, [])

    def test_compile_error_is_saved_and_raised(self):
        cap = self.capture(level="compile")
        with self.assertRaisesRegex(RuntimeError, "planted compile error"):
            cap.compile(self.gm, self.inputs, failing_compiler, "forward")
        self.assertEqual([k for _, k in cap.saved], ["compile_error"])
        with open(os.path.join(cap.saved[0][0], "repro.json")) as f:
            doc = json.load(f)
        self.assertIn("planted compile error",
                      doc["provenance"]["source"]["torch_verdict"]["message"])

    def test_runtime_error_is_saved_and_raised(self):
        cap = self.capture(level="runtime")
        with self.assertRaisesRegex(RuntimeError, "planted runtime error"):
            cap.compile(self.gm, self.inputs, crashing_compiler, "forward")
        self.assertEqual([k for _, k in cap.saved], ["runtime_error"])

    def test_an_unknown_calling_convention_is_not_a_bug(self):
        def wrong_convention(gm, example_inputs):
            return lambda single_list: gm(*single_list)  # boxed, but not marked so
        cap = self.capture(level="runtime")
        compiled = cap.compile(self.gm, self.inputs, wrong_convention, "forward")
        self.assertTrue(callable(compiled))
        self.assertEqual(cap.saved, [])
        self.assertIn("cannot run the compiled forward graph", self.log.getvalue())

    def test_fake_inputs_become_seeded_real_ones(self):
        from torch._subclasses.fake_tensor import FakeTensorMode
        with FakeTensorMode() as mode:
            fakes = [mode.from_tensor(t) for t in self.inputs]
        real = rb.real_inputs(fakes)
        self.assertEqual([tuple(t.shape) for t in real], [tuple(t.shape) for t in self.inputs])
        self.assertFalse(any(type(t).__name__ == "FakeTensor" for t in real))
        again = rb.real_inputs(fakes)
        self.assertTrue(all(torch.equal(a, b) for a, b in zip(real, again)))

    def test_fake_example_inputs_are_checked_on_the_first_real_call(self):
        # A BatchNorm-like graph: random values for its variance (drawn negative)
        # would make every output NaN on both sides and hide the wrong relu.
        from torch._subclasses.fake_tensor import FakeTensorMode
        from functorch.compile import make_boxed_func

        def scaled(x, var):
            return torch.relu(x) * torch.sqrt(var).sum()
        real = [torch.randn(4, 8), torch.rand(8) + 0.5]
        gm = make_fx(scaled)(*real)
        for boxed in (False, True):
            with FakeTensorMode() as mode:
                fakes = [mode.from_tensor(t) for t in real]
            cap = self.capture()
            compiler = (lambda g, ex: make_boxed_func(wrong_relu_compiler(g, ex))) if boxed \
                else wrong_relu_compiler
            compiled = cap.compile(gm, fakes, compiler, "forward")
            self.assertEqual(cap.saved, [])  # nothing judged before the program runs it
            self.assertEqual(getattr(compiled, "_boxed_call", False), boxed)
            args = [t.clone() for t in real]
            out = compiled(args) if boxed else compiled(*args)
            self.assertTrue(torch.equal(out, wrong_relu_compiler(gm, real)(*real)))
            self.assertEqual([k for _, k in cap.saved], ["accuracy"], self.log.getvalue())
            again = compiled(args) if boxed else compiled(*args)  # judged once
            self.assertTrue(torch.equal(again, out))
            self.assertEqual(len(cap.saved), 1)
            path = cap.saved[0][0]
            self.assertEqual(reprokit("check", path).returncode, 0)
            self.assertEqual(reprokit("check", path, "--opt", "faults=relu:accuracy").returncode,
                             1)

    def test_a_graph_that_cannot_be_converted_is_reported_with_every_op(self):
        def inplace(x, w):
            y = x @ w
            y.relu_()
            return y.add_(1.0)
        gm = make_fx(inplace)(*self.inputs[:2])  # torch 1.13's make_fx keeps in-place ops
        cap = self.capture()
        cap.compile(gm, self.inputs[:2], wrong_relu_compiler_inplace, "forward")
        self.assertEqual(cap.saved, [])
        text = self.log.getvalue()
        self.assertIn("could not save the forward graph (accuracy)", text)
        self.assertIn("aten.relu_.default x1", text)
        self.assertIn("aten.add_.Tensor x1", text)

    def test_a_deferred_check_saves_and_raises_a_runtime_error(self):
        from torch._subclasses.fake_tensor import FakeTensorMode
        with FakeTensorMode() as mode:
            fakes = [mode.from_tensor(t) for t in self.inputs]
        cap = self.capture(level="runtime")
        compiled = cap.compile(self.gm, fakes, crashing_compiler, "forward")
        with self.assertRaisesRegex(RuntimeError, "planted runtime error"):
            compiled(*self.inputs)
        self.assertEqual([k for _, k in cap.saved], ["runtime_error"])

    def test_aot_forward_and_backward_are_captured_separately(self):
        from functorch.compile import aot_function, make_boxed_func
        cap = self.capture()

        def boxed(compiler):
            return lambda gm, ex: make_boxed_func(compiler(gm, ex))
        fn = aot_function(mlp,
                          lambda g, ex: cap.compile(g, ex, boxed(wrong_relu_compiler), "forward"),
                          lambda g, ex: cap.compile(g, ex, boxed(wrong_mm_compiler), "backward"))
        leaves = [t.clone().requires_grad_(True) for t in self.inputs]
        fn(*leaves).sum().backward()
        kinds = sorted(os.path.basename(p).split("-")[0] for p, _ in cap.saved)
        self.assertEqual(kinds, ["backward", "forward"], self.log.getvalue())
        for path, _ in cap.saved:
            self.assertEqual(reprokit("check", path).returncode, 0)
            with open(os.path.join(path, "repro.json")) as f:
                self.assertEqual(json.load(f)["provenance"]["source"]["torch_verdict"]["kind"],
                                 "accuracy")


class DynamoStage(unittest.TestCase):
    def test_torch_level_graph_is_checked_and_saved_as_aten(self):
        torch.manual_seed(1)
        model = nn.Sequential(nn.Linear(6, 5), nn.ReLU(), nn.Linear(5, 2))
        traced = torch.fx.symbolic_trace(model)  # call_module nodes, as Dynamo hands over
        x = torch.randn(3, 6)

        def off_by_one_percent(gm, example_inputs):
            return lambda *args: gm(*args) * 1.01
        cap = rb.GraphCapture(new_dir("dynamo"), level="accuracy", stage="dynamo",
                              inner_name="fake", reprokit=REPROKIT, log=io.StringIO())
        cap.compile(traced, [x], off_by_one_percent, "dynamo")
        self.assertEqual([k for _, k in cap.saved], ["accuracy"])
        path = cap.saved[0][0]
        with open(os.path.join(path, "graph.rk")) as f:
            text = f.read()
        self.assertIn("matmul(", text)  # traced to ATen, then converted
        with open(os.path.join(path, "repro.json")) as f:
            doc = json.load(f)
        self.assertEqual(doc["provenance"]["source"]["stage"], "dynamo")
        self.assertEqual(reprokit("check", path).returncode, 0)

    def test_fp64_graph_of_a_module_runs_in_double(self):
        traced = torch.fx.symbolic_trace(nn.Linear(3, 2))
        out = rb.fp64_graph(traced)(torch.randn(4, 3, dtype=torch.float64))
        self.assertEqual(out.dtype, torch.float64)


class AccuracyRule(unittest.TestCase):
    def test_allclose_passes(self):
        ref = torch.randn(100)
        ok, details = accuracy.same_within_tolerance([ref], [ref + 1e-6], [ref.double()])
        self.assertTrue(ok)
        self.assertEqual(details[0]["reason"], "allclose")

    def test_rmse_rule(self):
        torch.manual_seed(3)
        fp64 = torch.randn(1000, dtype=torch.float64)
        ref = (fp64 + 1e-3 * torch.randn(1000, dtype=torch.float64)).float()
        near = (fp64 + 1.5e-3 * torch.randn(1000, dtype=torch.float64)).float()
        far = (fp64 + 1e-2 * torch.randn(1000, dtype=torch.float64)).float()
        self.assertTrue(accuracy.same_within_tolerance([ref], [near], [fp64])[0])
        ok, details = accuracy.same_within_tolerance([ref], [far], [fp64])
        self.assertFalse(ok)
        self.assertEqual(details[0]["multiplier"], 2.0)
        half = accuracy.compare(ref.half(), far.half(), fp64, tol=1e-4)[1]
        self.assertEqual(half["multiplier"], 3.0)

    def test_integers_must_be_equal_and_nans_in_place(self):
        self.assertFalse(accuracy.same_within_tolerance([torch.tensor([1, 2])],
                                                        [torch.tensor([1, 3])])[0])
        nan = torch.tensor([float("nan"), 1.0])
        self.assertTrue(accuracy.same_within_tolerance([nan], [nan.clone()])[0])
        self.assertFalse(accuracy.same_within_tolerance([nan], [torch.tensor([0.0, 1.0])])[0])

    def test_fp64_graph_promotes_dtype_arguments(self):
        gm = make_fx(lambda x: x.to(torch.float32) * torch.ones(3, dtype=torch.float32))(
            torch.randn(3))
        out = rb.fp64_graph(gm)(torch.randn(3, dtype=torch.float64))
        self.assertEqual(out.dtype, torch.float64)


class EnvironmentSwitch(unittest.TestCase):
    def test_settings(self):
        self.assertIsNone(auto.settings({}))
        self.assertIsNone(auto.settings({"REPROKIT_TORCH_CAPTURE": "off"}))
        self.assertEqual(auto.settings({"REPROKIT_TORCH_CAPTURE": "accuracy",
                                        "REPROKIT_TORCH_OUT": "b/"}),
                         {"level": "accuracy", "stage": "aot", "out": "b/"})
        self.assertEqual(auto.settings({"REPROKIT_TORCH_CAPTURE": "compile",
                                        "REPROKIT_TORCH_STAGE": "dynamo"})["stage"], "dynamo")
        with self.assertRaisesRegex(ValueError, "REPROKIT_TORCH_CAPTURE=always"):
            auto.settings({"REPROKIT_TORCH_CAPTURE": "always"})

    def test_install_wraps_torch_compile(self):
        seen = []

        def fake_compile(model=None, *args, backend="inductor", **kwargs):
            seen.append(backend)
            return model
        saved = getattr(torch, "compile", None)
        torch.compile = fake_compile
        try:
            config = auto.install({"REPROKIT_TORCH_CAPTURE": "runtime",
                                   "REPROKIT_TORCH_OUT": new_dir("auto")})
            self.assertEqual(config["level"], "runtime")
            model = nn.Linear(2, 2)
            self.assertIs(torch.compile(model), model)
            torch.compile(model, backend="eager")
            self.assertTrue(getattr(torch.compile, "_reprokit_wrapped", False))
            self.assertIsNone(auto.install({}))  # off: nothing more is wrapped
        finally:
            if saved is None:
                del torch.compile
            else:
                torch.compile = saved
        self.assertEqual([b.capture.inner_name for b in seen], ["inductor", "eager"])
        self.assertEqual([b.capture.level for b in seen], ["runtime", "runtime"])
        self.assertEqual(seen[0].capture.stage, "aot")

    def test_backend_rejects_bad_levels(self):
        with self.assertRaisesRegex(ValueError, "level must be one of"):
            reprokit_torch.backend("eager", level="everything")
        with self.assertRaisesRegex(ValueError, "stage must be one of"):
            reprokit_torch.backend("eager", stage="inductor")


if __name__ == "__main__":
    unittest.main()
