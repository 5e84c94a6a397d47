"""The ATen -> reprokit converter, op family by op family, through the real CLI.

Each case is a small function traced by make_fx (torch 1.13's ATen graphs);
its bundle must load and pass `reprokit check` with the built-in compiler, and
`reprokit run` on the recorded inputs must give torch's eager outputs.
"""

import math
import operator
import os
import unittest

import torch
import torch.nn as nn
import torch.nn.functional as F

from rk_testutil import (assert_close, make_fx, new_dir, r, read, reprokit, reprokit_torch,
                         run_outputs)

torch.manual_seed(0)


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

if __name__ == "__main__":
    unittest.main()
