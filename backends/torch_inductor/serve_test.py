"""Unit tests of the torch_inductor adapter that need torch but no Dynamo or
Inductor (Debian's torch 1.13 runs them): the lowering's regressions (a scalar
input stays a scalar, gather's negative axis) and how a failure is classified
(the compiler's, or the adapter's own: the lowering fails eagerly too, returns
the wrong type eagerly too, or Dynamo cannot trace one of its rk_* functions).

Run by backends/torch_inductor/lowering_test.sh (python3 -m unittest).
"""

import importlib.machinery
import importlib.util
import os
import sys
import traceback
import unittest

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402
import torch  # noqa: E402

import lowering  # noqa: E402
import reprokit_backend as rb  # noqa: E402


def load_serve():
    loader = importlib.machinery.SourceFileLoader("torch_inductor_serve",
                                                  os.path.join(HERE, "serve"))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


serve = load_serve()


def node(i, op, out_dtype, shape, operands=(), **attrs):
    return rb.Node(i, "n%d" % i, op, out_dtype, list(shape), list(operands), attrs)


class Unsupported(Exception):
    """Named as Dynamo's exception is (the classification goes by name)."""


class LoweringTest(unittest.TestCase):
    def test_scalar_input_stays_a_scalar(self):
        # np.ascontiguousarray made it [1]: every op on it then had shape [1]
        # where the graph declares [] (8% of generated graphs).
        for dtype, value in (("f32", np.float32(1.5)), ("i64", np.int64(3)),
                             ("bf16", np.float32(2.0)), ("bool", np.bool_(True))):
            t = lowering.to_torch(np.array(value), dtype, "cpu")
            self.assertEqual(list(t.shape), [], dtype)
            self.assertEqual(t.dtype, lowering.DTYPES[dtype])

    def test_scalar_graph_output_is_a_scalar(self):
        graph = rb.Graph("g", [node(0, "input", "f32", []), node(1, "exp", "f32", [], [0])],
                         [0], [1])
        module = lowering.build_module(graph, "cpu")
        (out,) = module(lowering.to_torch(np.array(np.float32(0.0)), "f32", "cpu"))
        self.assertEqual(list(out.shape), [])
        self.assertEqual(float(out), 1.0)

    def test_gather_negative_axis(self):
        # axis -1 was used as is in shape arithmetic: a reshape to [3,1,3,3,1,3].
        graph = rb.Graph("g", [node(0, "input", "f32", [3, 1, 3]),
                               node(1, "input", "i32", [3]),
                               node(2, "gather", "f32", [3, 1, 3], [0, 1], axis=-1)],
                         [0, 1], [2])
        module = lowering.build_module(graph, "cpu")
        data = torch.arange(9, dtype=torch.float32).reshape(3, 1, 3)
        (out,) = module(data, torch.tensor([2, -3, 5], dtype=torch.int32))
        self.assertEqual(list(out.shape), [3, 1, 3])
        self.assertEqual(out[1, 0].tolist(), [5.0, 3.0, 0.0])  # 5 is out of range: 0

    def test_node_functions_take_no_python_decisions_on_tensors(self):
        # What Dynamo must trace: pads and casts decided when lowering.
        self.assertEqual(lowering.torch_pads_of([1, 2, 3, 4], 2), [2, 4, 1, 3])
        self.assertIsNone(lowering.window_pads_of([0, 0, 0, 0]))
        self.assertEqual(lowering.window_pads_of([1, 2, 3, 4]), [2, 4, 1, 3])
        graph = rb.Graph("g", [node(0, "input", "f32", [2]),
                               node(1, "cast", "i32", [2], [0], dtype="i32")], [0], [1])
        module = lowering.build_module(graph, "cpu")
        targets = [n.target for n in module.graph.nodes if n.op == "call_function"]
        self.assertEqual(targets, [lowering.rk_cast_float_to_int])
        (out,) = module(torch.tensor([float("nan"), -2.7]))
        self.assertEqual(out.tolist(), [0, -2])


class ClassifyTest(unittest.TestCase):
    def setUp(self):
        self.graph = rb.Graph("g", [node(0, "input", "f32", [2]),
                                    node(1, "relu", "f32", [2], [0])], [0], [1])
        self.module = lowering.build_module(self.graph, "cpu")
        self.inputs = [torch.tensor([-1.0, 2.0])]

    def test_untraceable_lowering_frame_is_the_adapters(self):
        e = Unsupported("data-dependent branching")
        e.real_stack = traceback.StackSummary.from_list(
            [("<eval_with_key>.0", 5, "forward", None),
             (lowering.__file__, 77, "rk_int_div", None)])
        fault = serve.classify_failure(e, self.module, self.inputs, "cpu")
        self.assertIsInstance(fault, serve.AdapterFault)
        self.assertEqual(fault.kind, "unsupported")
        self.assertIn("adapter fault", str(fault))
        self.assertIn("rk_int_div (lowering.py:77)", str(fault))

    def test_untraceable_subclass_in_the_cause_chain(self):
        class GraphBreak(Unsupported):
            pass

        inner = GraphBreak("Data-dependent branching")
        inner.real_stack = traceback.StackSummary.from_list(
            [(lowering.__file__, 64, "rk_clip", None)])
        try:
            try:
                raise inner
            except GraphBreak as e:
                raise RuntimeError("backend compiler failed") from e
        except RuntimeError as outer:
            self.assertEqual(serve.untraceable_lowering_frame(outer), "rk_clip (lowering.py:64)")

    def test_untraceable_frame_from_the_message(self):
        e = Unsupported('call_method on a tensor\n\nfrom user code:\n'
                        '   File "<eval_with_key>.3", line 6, in forward\n'
                        '   File "%s", line 120, in rk_cast_float_to_int\n' % lowering.__file__)
        self.assertEqual(serve.untraceable_lowering_frame(e),
                         "rk_cast_float_to_int (lowering.py:120)")

    def test_dynamo_failure_elsewhere_is_a_compile_error(self):
        e = Unsupported("an op Dynamo cannot trace")
        e.real_stack = traceback.StackSummary.from_list(
            [("<eval_with_key>.0", 5, "forward", None)])
        fault = serve.classify_failure(e, self.module, self.inputs, "cpu")
        self.assertIsInstance(fault, rb.CompileError)
        self.assertNotIsInstance(fault, serve.AdapterFault)

    def test_failure_that_eager_also_has_is_the_adapters(self):
        broken = rb.Graph("g", [node(0, "input", "f32", [2, 3]),
                                node(1, "transpose", "f32", [3, 2], [0], perm=[1, 0, 2])],
                          [0], [1])
        module = lowering.build_module(broken, "cpu")
        fault = serve.classify_failure(RuntimeError("compiled: boom"), module,
                                       [torch.zeros(2, 3)], "cpu")
        self.assertIsInstance(fault, serve.AdapterFault)
        self.assertIn("fails without compiling too in rk_transpose", str(fault))

    def test_runtime_failure_of_the_compiled_code(self):
        fault = serve.classify_failure(RuntimeError("kernel crashed"), self.module,
                                       self.inputs, "cpu")
        self.assertIsInstance(fault, rb.RunError)
        self.assertNotIsInstance(fault, serve.AdapterFault)

    def test_wrong_type_from_the_compiler_is_returned_as_it_is(self):
        expected = [self.graph.nodes[1]]
        wrong = [torch.zeros(1, 2, dtype=torch.float64)]
        serve.check_types(wrong, expected, self.module, self.inputs, "cpu", eager=False)
        dtype, array = serve.to_host(wrong[0], expected[0])
        self.assertEqual((dtype, list(array.shape)), ("f64", [1, 2]))
        bits = serve.to_host(torch.ones(3, dtype=torch.bfloat16), expected[0])
        self.assertEqual(bits[0], "bf16")
        self.assertEqual(bits[1].tolist(), [0x3F80] * 3)

    def test_wrong_type_eagerly_too_is_the_adapters(self):
        declared_scalar = rb.Graph("g", [node(0, "input", "f32", [2]),
                                         node(1, "relu", "f32", [], [0])], [0], [1])
        module = lowering.build_module(declared_scalar, "cpu")
        with self.assertRaises(serve.AdapterFault) as raised:
            serve.check_types([torch.zeros(2)], [declared_scalar.nodes[1]], module,
                              self.inputs, "cpu", eager=False)
        self.assertIn("is f32[2] without compiling, declared f32[]", str(raised.exception))


if __name__ == "__main__":
    unittest.main()
