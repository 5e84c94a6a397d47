#!/usr/bin/python3
"""Writes an ONNX model with about 100 MB of weights for the import benchmark
(docs/BENCHMARKS.md, "ONNX import and real models"): 24 layers of MatMul (a
random f32[1024,1024] initializer each) + Relu on an input f32[4,1024].

Usage: make_big_onnx.py OUT.onnx
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    rng = np.random.RandomState(0)
    nodes, weights, x, d = [], [], "x", 1024
    for i in range(24):
        w = "w%d" % i
        weights.append(numpy_helper.from_array((rng.randn(d, d) * 0.03).astype(np.float32), w))
        nodes.append(helper.make_node("MatMul", [x, w], ["h%d" % i], name="/layer%d/MatMul" % i))
        nodes.append(helper.make_node("Relu", ["h%d" % i], ["r%d" % i], name="/layer%d/Relu" % i))
        x = "r%d" % i
    graph = helper.make_graph(
        nodes, "big", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, d])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, [4, d])], weights)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, sys.argv[1])


if __name__ == "__main__":
    main()
