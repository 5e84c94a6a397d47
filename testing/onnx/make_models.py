#!/usr/bin/python3
"""Builds three small models of real architectures with onnx.helper.

Random weights (a fixed seed), no downloads; opset 17; every model passes
ONNX's checker. The input batch dim is symbolic ("batch"), so the tests bind
it with --input-shape as a user of a real exported model would.

  gpt2.onnx    GPT-2-style decoder: token + position embedding (Gather), 2
               pre-norm layers of causal multi-head attention and a GELU MLP
               (the erf formula, as exporters write it), final layer norm,
               LM head tied to the token embedding.  ids: int64[batch, 16]
  resnet.onnx  ResNet-style CNN: conv + batch norm + relu stem, max pool,
               4 residual stages (the last three downsample with a strided
               1x1 shortcut), global average pool, flatten, Gemm.
               image: float[batch, 3, 32, 32]
  bert.onnx    BERT-style encoder: token, position and segment embeddings,
               2 post-norm layers of masked self-attention and a GELU MLP,
               a tanh pooler on the first token.
               ids, segments: int64[batch, 16]; mask: float[batch, 16]

Usage: make_models.py OUT_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


class Builder:
    def __init__(self, seed):
        self.rng = np.random.RandomState(seed)
        self.nodes, self.inits, self.count = [], [], 0

    def weight(self, name, shape, scale=0.05):
        self.inits.append(numpy_helper.from_array(
            (self.rng.randn(*shape) * scale).astype(np.float32), name))
        return name

    def const(self, name, value, dtype=np.float32):
        self.inits.append(numpy_helper.from_array(np.asarray(value, dtype=dtype), name))
        return name

    def op(self, op_type, inputs, name, outputs=1, **attrs):
        outs = [name] if outputs == 1 else ["%s_%d" % (name, i) for i in range(outputs)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, name=name, **attrs))
        return outs[0] if outputs == 1 else outs

    def linear(self, x, n_in, n_out, prefix):
        w = self.weight(prefix + ".weight", [n_in, n_out])
        b = self.weight(prefix + ".bias", [n_out], 0.01)
        return self.op("Add", [self.op("MatMul", [x, w], "/%s/MatMul" % prefix), b],
                       "/%s/Add" % prefix)

    def layer_norm(self, x, d, prefix):
        g = self.const(prefix + ".weight", np.ones(d) + self.rng.randn(d) * 0.1)
        b = self.weight(prefix + ".bias", [d], 0.1)
        return self.op("LayerNormalization", [x, g, b], "/%s/LayerNorm" % prefix, axis=-1,
                       epsilon=1e-5)

    def gelu(self, x, prefix):
        # x * 0.5 * (1 + erf(x / sqrt(2))), as exporters spell it.
        div = self.op("Div", [x, self.const(prefix + ".sqrt2", np.sqrt(2.0))], "/%s/Div" % prefix)
        erf = self.op("Erf", [div], "/%s/Erf" % prefix)
        add = self.op("Add", [erf, self.const(prefix + ".one", 1.0)], "/%s/Add" % prefix)
        mul = self.op("Mul", [x, add], "/%s/Mul" % prefix)
        return self.op("Mul", [mul, self.const(prefix + ".half", 0.5)], "/%s/Mul_1" % prefix)

    def attention(self, x, d, heads, t, prefix, mask=None, causal=False):
        dh = d // heads
        qkv = self.linear(x, d, 3 * d, prefix + ".qkv")
        q, k, v = self.op("Split", [qkv, self.const(prefix + ".split", [d, d, d], np.int64)],
                          "/%s/Split" % prefix, outputs=3, axis=-1)
        shape = self.const(prefix + ".heads", [0, t, heads, dh], np.int64)

        def split_heads(y, tag, perm):
            r = self.op("Reshape", [y, shape], "/%s/Reshape_%s" % (prefix, tag))
            return self.op("Transpose", [r], "/%s/Transpose_%s" % (prefix, tag), perm=perm)

        qh = split_heads(q, "q", [0, 2, 1, 3])
        kh = split_heads(k, "k", [0, 2, 3, 1])
        vh = split_heads(v, "v", [0, 2, 1, 3])
        scores = self.op("MatMul", [qh, kh], "/%s/MatMul_qk" % prefix)
        scores = self.op("Div", [scores, self.const(prefix + ".scale", np.sqrt(dh))],
                         "/%s/Div" % prefix)
        if causal:
            keep = self.const(prefix + ".causal", np.tril(np.ones((t, t))).astype(bool), bool)
            scores = self.op("Where", [keep, scores, self.const(prefix + ".neg", -1e4)],
                             "/%s/Where" % prefix)
        if mask is not None:
            scores = self.op("Add", [scores, mask], "/%s/AddMask" % prefix)
        probs = self.op("Softmax", [scores], "/%s/Softmax" % prefix, axis=-1)
        ctx = self.op("MatMul", [probs, vh], "/%s/MatMul_v" % prefix)
        ctx = self.op("Transpose", [ctx], "/%s/Transpose_out" % prefix, perm=[0, 2, 1, 3])
        ctx = self.op("Reshape", [ctx, self.const(prefix + ".merge", [0, t, d], np.int64)],
                      "/%s/Reshape_out" % prefix)
        return self.linear(ctx, d, d, prefix + ".proj")

    def mlp(self, x, d, prefix):
        h = self.gelu(self.linear(x, d, 4 * d, prefix + ".fc"), prefix + ".act")
        return self.linear(h, 4 * d, d, prefix + ".out")

    def model(self, name, inputs, outputs):
        graph = helper.make_graph(self.nodes, name, inputs, outputs, self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                                  producer_name="make_models.py")
        model.ir_version = 8
        onnx.checker.check_model(model)
        return model


def gpt2(vocab=512, t=16, d=64, heads=4, layers=2):
    b = Builder(1)
    wte = b.weight("wte", [vocab, d], 0.1)
    wpe = b.weight("wpe", [t, d], 0.05)
    x = b.op("Gather", [wte, "ids"], "/wte/Gather", axis=0)
    pos = b.op("Gather", [wpe, b.const("positions", np.arange(t), np.int64)], "/wpe/Gather",
               axis=0)
    x = b.op("Add", [x, pos], "/embed/Add")
    for i in range(layers):
        p = "h.%d" % i
        a = b.attention(b.layer_norm(x, d, p + ".ln_1"), d, heads, t, p + ".attn", causal=True)
        x = b.op("Add", [x, a], "/%s/residual_attn" % p)
        m = b.mlp(b.layer_norm(x, d, p + ".ln_2"), d, p + ".mlp")
        x = b.op("Add", [x, m], "/%s/residual_mlp" % p)
    x = b.layer_norm(x, d, "ln_f")
    head = b.op("Transpose", [wte], "/lm_head/Transpose", perm=[1, 0])
    logits = b.op("MatMul", [x, head], "/lm_head/MatMul")
    return b.model("gpt2",
                   [helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", t])],
                   [helper.make_tensor_value_info(logits, TensorProto.FLOAT,
                                                  ["batch", t, vocab])])


def resnet(classes=10):
    b = Builder(2)

    def conv_bn(x, c_in, c_out, k, stride, prefix, relu=True):
        w = b.weight(prefix + ".weight", [c_out, c_in, k, k], np.sqrt(2.0 / (c_in * k * k)))
        y = b.op("Conv", [x, w], "/%s/Conv" % prefix, kernel_shape=[k, k],
                 strides=[stride, stride], pads=[k // 2] * 4)
        scale = b.const(prefix + ".bn.weight", 1 + b.rng.randn(c_out) * 0.1)
        bias = b.weight(prefix + ".bn.bias", [c_out], 0.1)
        mean = b.weight(prefix + ".bn.running_mean", [c_out], 0.1)
        var = b.const(prefix + ".bn.running_var", 1 + np.abs(b.rng.randn(c_out)) * 0.1)
        y = b.op("BatchNormalization", [y, scale, bias, mean, var], "/%s/BatchNorm" % prefix,
                 epsilon=1e-5)
        return b.op("Relu", [y], "/%s/Relu" % prefix) if relu else y

    x = conv_bn("image", 3, 16, 3, 1, "stem")
    x = b.op("MaxPool", [x], "/stem/MaxPool", kernel_shape=[3, 3], strides=[2, 2],
             pads=[1, 1, 1, 1])
    c = 16
    for stage, (c_out, stride) in enumerate([(16, 1), (32, 2), (64, 2), (128, 2)]):
        p = "layer%d.0" % (stage + 1)
        y = conv_bn(x, c, c_out, 3, stride, p + ".conv1")
        y = conv_bn(y, c_out, c_out, 3, 1, p + ".conv2", relu=False)
        shortcut = x
        if stride != 1 or c != c_out:
            shortcut = conv_bn(x, c, c_out, 1, stride, p + ".downsample", relu=False)
        x = b.op("Relu", [b.op("Add", [y, shortcut], "/%s/Add" % p)], "/%s/Relu" % p)
        c = c_out
    x = b.op("GlobalAveragePool", [x], "/avgpool/GlobalAveragePool")
    x = b.op("Flatten", [x], "/Flatten", axis=1)
    logits = b.op("Gemm", [x, b.weight("fc.weight", [classes, c]), b.weight("fc.bias", [classes])],
                  "/fc/Gemm", transB=1)
    return b.model("resnet",
                   [helper.make_tensor_value_info("image", TensorProto.FLOAT,
                                                  ["batch", 3, 32, 32])],
                   [helper.make_tensor_value_info(logits, TensorProto.FLOAT, ["batch", classes])])


def bert(vocab=512, t=16, d=64, heads=4, layers=2):
    b = Builder(3)
    x = b.op("Gather", [b.weight("word_embeddings", [vocab, d], 0.1), "ids"],
             "/embeddings/word/Gather", axis=0)
    pos = b.op("Gather", [b.weight("position_embeddings", [t, d]),
                          b.const("positions", np.arange(t), np.int64)],
               "/embeddings/position/Gather", axis=0)
    seg = b.op("Gather", [b.weight("token_type_embeddings", [2, d]), "segments"],
               "/embeddings/token_type/Gather", axis=0)
    x = b.op("Add", [b.op("Add", [x, pos], "/embeddings/Add"), seg], "/embeddings/Add_1")
    x = b.layer_norm(x, d, "embeddings.LayerNorm")
    # [batch, t] of 1 (attend) / 0 (padding) -> an additive [batch, 1, 1, t] mask.
    m = b.op("Unsqueeze", ["mask", b.const("mask_axes", [1, 2], np.int64)], "/mask/Unsqueeze")
    m = b.op("Sub", [b.const("mask_one", 1.0), m], "/mask/Sub")
    m = b.op("Mul", [m, b.const("mask_scale", -1e4)], "/mask/Mul")
    for i in range(layers):
        p = "encoder.layer.%d" % i
        a = b.attention(x, d, heads, t, p + ".attention", mask=m)
        x = b.layer_norm(b.op("Add", [x, a], "/%s/attention/residual" % p), d,
                         p + ".attention.LayerNorm")
        f = b.mlp(x, d, p + ".ffn")
        x = b.layer_norm(b.op("Add", [x, f], "/%s/ffn/residual" % p), d, p + ".output.LayerNorm")
    first = b.op("Gather", [x, b.const("cls", 0, np.int64)], "/pooler/Gather", axis=1)
    pooled = b.op("Tanh", [b.linear(first, d, d, "pooler.dense")], "/pooler/Tanh")
    return b.model("bert",
                   [helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", t]),
                    helper.make_tensor_value_info("segments", TensorProto.INT64, ["batch", t]),
                    helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["batch", t])],
                   [helper.make_tensor_value_info(x, TensorProto.FLOAT, ["batch", t, d]),
                    helper.make_tensor_value_info(pooled, TensorProto.FLOAT, ["batch", d])])


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, build in (("gpt2", gpt2), ("resnet", resnet), ("bert", bert)):
        model = build()
        onnx.save(model, os.path.join(out, name + ".onnx"))
        print("%s: %d nodes, %d weights" % (name, len(model.graph.node),
                                             len(model.graph.initializer)))


if __name__ == "__main__":
    main()
