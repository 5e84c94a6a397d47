#!/usr/bin/python3
"""Conformance cases for ONNX opsets 18 to 21, which Debian's python3-onnx
(ONNX 1.12: IR 8, opsets to 17) has no node tests for.

Each case is one node built with onnx.helper in a model of IR version 10 and
the opset it tests (both set by hand: ONNX 1.12's helper knows neither),
with inputs from a fixed seed and the expected outputs computed with numpy
from the operator documents' definitions. One case per change of an op's
meaning in those opsets (docs/ONNX.md, "Opsets 18 to 21"), plus the forms
PyTorch's default exporter writes.

cases() -> [(name, op, model, inputs, outputs)]; make_node_cases.py writes
them in ONNX's test-data layout with the node tests.
"""
import math

import numpy as np
from onnx import TensorProto, helper, numpy_helper

IR_VERSION = 10
_rng = np.random.RandomState(18)

_ONNX_TYPES = {np.float32: TensorProto.FLOAT, np.float16: TensorProto.FLOAT16,
               np.float64: TensorProto.DOUBLE, np.int64: TensorProto.INT64,
               np.int32: TensorProto.INT32, np.bool_: TensorProto.BOOL}


def _info(name, value):
    return helper.make_tensor_value_info(name, _ONNX_TYPES[value.dtype.type], list(value.shape))


def _case(name, opset, node, inputs, outputs, initializers=()):
    """inputs, outputs: [(name, array)]; initializers: [(name, array)]."""
    graph = helper.make_graph(
        [node], name, [_info(n, v) for n, v in inputs], [_info(n, v) for n, v in outputs],
        [numpy_helper.from_array(v, n) for n, v in initializers])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="reprokit newer_opset_cases")
    model.ir_version = IR_VERSION
    return ("test_rk_opset%d_%s" % (opset, name), node.op_type, model,
            [v for _, v in inputs], [v for _, v in outputs])


def _reduce_cases():
    reducers = {
        "ReduceMax": lambda x, a, k: np.max(x, axis=a, keepdims=k),
        "ReduceMin": lambda x, a, k: np.min(x, axis=a, keepdims=k),
        "ReduceMean": lambda x, a, k: np.mean(x, axis=a, keepdims=k),
        "ReduceSum": lambda x, a, k: np.sum(x, axis=a, keepdims=k),
        "ReduceL1": lambda x, a, k: np.sum(np.abs(x), axis=a, keepdims=k),
        "ReduceL2": lambda x, a, k: np.sqrt(np.sum(x * x, axis=a, keepdims=k)),
        "ReduceLogSum": lambda x, a, k: np.log(np.sum(x, axis=a, keepdims=k)),
        "ReduceLogSumExp": lambda x, a, k: np.log(np.sum(np.exp(x), axis=a, keepdims=k)),
        "ReduceSumSquare": lambda x, a, k: np.sum(x * x, axis=a, keepdims=k),
    }
    # Positive values: LogSum's logarithm needs them.
    x = (_rng.rand(3, 4, 5) + 0.5).astype(np.float32)
    out = []
    for op, f in sorted(reducers.items()):
        lower = op[len("Reduce"):].lower()
        # Axes as input 1 (an initializer, as exporters write it).
        for axes, keep in (([1], 1), ([-1, 0], 0)):
            node = helper.make_node(op, ["x", "axes"], ["y"], keepdims=keep)
            y = f(x.astype(np.float64), tuple(axes), keep == 1).astype(np.float32)
            out.append(_case("%s_axes_%s_keepdims_%d" % (lower, "_".join(str(a).replace("-", "m") for a in axes), keep),
                             18, node, [("x", x)], [("y", y)],
                             [("axes", np.array(axes, dtype=np.int64))]))
        # No axes: every axis.
        node = helper.make_node(op, ["x"], ["y"], keepdims=0)
        y = np.array(f(x.astype(np.float64), None, False), dtype=np.float32)
        out.append(_case("%s_all_axes" % lower, 18, node, [("x", x)], [("y", y)]))
        # noop_with_empty_axes=1 and no axes: reduced over no axis, each
        # element alone (ONNX Runtime squares for ReduceSumSquare, takes the
        # log for ReduceLogSum).
        node = helper.make_node(op, ["x"], ["y"], keepdims=1, noop_with_empty_axes=1)
        y = f(x.astype(np.float64)[..., np.newaxis], -1, False).astype(np.float32)
        out.append(_case("%s_noop_empty_axes" % lower, 18, node, [("x", x)], [("y", y)]))
    return out


def _pad_cases():
    x = _rng.randn(2, 5).astype(np.float32)
    out = []
    for mode, opset in (("constant", 18), ("reflect", 18), ("edge", 18), ("wrap", 19)):
        kwargs = {"constant_values": 1.5} if mode == "constant" else {}
        # Pads of the last axis only, through the axes input (opset 18).
        y = np.pad(x, ((0, 0), (2, 3)), mode=mode, **kwargs)
        inputs = ["x", "pads", "value" if mode == "constant" else "", "axes"]
        inits = [("pads", np.array([2, 3], dtype=np.int64)), ("axes", np.array([-1], dtype=np.int64))]
        if mode == "constant":
            inits.append(("value", np.array(1.5, dtype=np.float32)))
        node = helper.make_node("Pad", inputs, ["y"], mode=mode)
        out.append(_case("pad_%s_axes" % mode, opset, node, [("x", x)], [("y", y.astype(np.float32))], inits))
        # Every axis.
        y = np.pad(x, ((1, 0), (1, 4)), mode=mode, **kwargs)
        node = helper.make_node("Pad", inputs[:3] if mode == "constant" else ["x", "pads"], ["y"], mode=mode)
        inits = [("pads", np.array([1, 1, 0, 4], dtype=np.int64))]
        if mode == "constant":
            inits.append(("value", np.array(1.5, dtype=np.float32)))
        out.append(_case("pad_%s_all_axes" % mode, opset, node, [("x", x)], [("y", y.astype(np.float32))], inits))
    return out


def _split_cases():
    out = []
    x = _rng.randn(7, 2).astype(np.float32)
    # num_outputs: parts of ceil(7 / 3) = 3, the last smaller.
    node = helper.make_node("Split", ["x"], ["a", "b", "c"], axis=0, num_outputs=3)
    out.append(_case("split_num_outputs_uneven", 18, node, [("x", x)],
                     [("a", x[0:3]), ("b", x[3:6]), ("c", x[6:7])]))
    x = _rng.randn(2, 6).astype(np.float32)
    node = helper.make_node("Split", ["x"], ["a", "b"], axis=-1, num_outputs=2)
    out.append(_case("split_num_outputs_even", 18, node, [("x", x)],
                     [("a", x[:, 0:3]), ("b", x[:, 3:6])]))
    node = helper.make_node("Split", ["x", "split"], ["a", "b"], axis=1)
    out.append(_case("split_sizes_input", 18, node, [("x", x)], [("a", x[:, 0:1]), ("b", x[:, 1:6])],
                     [("split", np.array([1, 5], dtype=np.int64))]))
    return out


def _activation_cases():
    out = []
    x = (_rng.randn(3, 4) * 3).astype(np.float32)
    xd = x.astype(np.float64)
    erf = np.vectorize(math.erf)
    exact = 0.5 * xd * (1 + erf(xd / math.sqrt(2)))
    tanh = 0.5 * xd * (1 + np.tanh(math.sqrt(2 / math.pi) * (xd + 0.044715 * xd ** 3)))
    out.append(_case("gelu_default", 20, helper.make_node("Gelu", ["x"], ["y"]), [("x", x)],
                     [("y", exact.astype(np.float32))]))
    out.append(_case("gelu_tanh", 20, helper.make_node("Gelu", ["x"], ["y"], approximate="tanh"),
                     [("x", x)], [("y", tanh.astype(np.float32))]))
    mish = xd * np.tanh(np.log1p(np.exp(xd)))
    out.append(_case("mish", 18, helper.make_node("Mish", ["x"], ["y"]), [("x", x)],
                     [("y", mish.astype(np.float32))]))
    return out


def _other_cases():
    out = []
    x = _rng.randn(2, 3).astype(np.float32)
    node = helper.make_node("Cast", ["x"], ["y"], to=TensorProto.FLOAT16, saturate=1)
    out.append(_case("cast_saturate_f16", 19, node, [("x", x)], [("y", x.astype(np.float16))]))
    # ONNX Runtime refuses saturate=0 for targets other than float8.
    node = helper.make_node("CastLike", ["x", "like"], ["y"], saturate=1)
    like = np.zeros((1,), dtype=np.float64)
    out.append(_case("castlike_saturate_f64", 19, node, [("x", x), ("like", like)],
                     [("y", x.astype(np.float64))]))
    x4 = _rng.randn(2, 3, 4, 5).astype(np.float32)
    node = helper.make_node("Shape", ["x"], ["y"], start=1, end=-1)
    out.append(_case("shape_start_end", 19, node, [("x", x4)], [("y", np.array([3, 4], dtype=np.int64))]))
    # LayerNormalization as PyTorch exports it at opset 20 (unchanged since 17).
    h = _rng.randn(2, 3, 8).astype(np.float32)
    scale = _rng.randn(8).astype(np.float32)
    bias = _rng.randn(8).astype(np.float32)
    hd = h.astype(np.float64)
    norm = (hd - hd.mean(-1, keepdims=True)) / np.sqrt(hd.var(-1, keepdims=True) + 1e-5)
    node = helper.make_node("LayerNormalization", ["x", "scale", "bias"], ["y"], axis=-1, epsilon=1e-5)
    out.append(_case("layer_norm", 20, node, [("x", h)], [("y", (norm * scale + bias).astype(np.float32))],
                     [("scale", scale), ("bias", bias)]))
    # GroupNormalization: scale and bias per group (18), per channel (21).
    g = _rng.randn(2, 6, 3, 2).astype(np.float32)
    gd = g.astype(np.float64).reshape(2, 3, -1)
    gnorm = ((gd - gd.mean(-1, keepdims=True)) / np.sqrt(gd.var(-1, keepdims=True) + 1e-5)).reshape(g.shape)
    for opset, params in ((18, 3), (21, 6)):
        gscale = _rng.randn(params).astype(np.float32)
        gbias = _rng.randn(params).astype(np.float32)
        per_channel = (np.repeat(gscale, 6 // params), np.repeat(gbias, 6 // params))
        y = gnorm * per_channel[0].reshape(1, 6, 1, 1) + per_channel[1].reshape(1, 6, 1, 1)
        node = helper.make_node("GroupNormalization", ["x", "scale", "bias"], ["y"], num_groups=3,
                                epsilon=1e-5)
        out.append(_case("group_norm", opset, node, [("x", g)], [("y", y.astype(np.float32))],
                         [("scale", gscale), ("bias", gbias)]))
    # AveragePool at opset 19 (dilations are new; 1 is the old meaning).
    node = helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[2, 2], strides=[2, 2],
                            dilations=[1, 1])
    # 2x2 windows, stride 2, over [4, 5]: rows 0-3, columns 0-3 (column 4 is left over).
    y = x4[:, :, :4, :4].reshape(2, 3, 2, 2, 2, 2).mean(axis=(3, 5))
    out.append(_case("averagepool_dilations_1", 19, node, [("x", x4)], [("y", y.astype(np.float32))]))
    return out


def cases():
    return _reduce_cases() + _pad_cases() + _split_cases() + _activation_cases() + _other_cases()
