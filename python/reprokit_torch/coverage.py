"""Which ops of the core ATen opset the converter maps (docs/PYTORCH.md's table).

    python3 -m reprokit_torch.coverage [--markdown]

On a torch whose ops carry `torch.Tag.core` (2.1 and later) the opset is read
from torch itself; older ones (Debian's 1.13) use CORE_ATEN below, the list
published with PyTorch 2.x (pytorch.org, "IRs", Core Aten IR), by overload.
Tested by python/tests/test_convert.py (every op the list says is mapped has a handler).
"""

import sys

import torch

from .aten_ops import HANDLERS
from .convert import RANDOM_WORDS

CORE_ATEN = """
_adaptive_avg_pool2d.default _adaptive_avg_pool2d_backward.default _adaptive_avg_pool3d.default
_cdist_forward.default _embedding_bag.default _local_scalar_dense.default _log_softmax.default
_native_batch_norm_legit.default _native_batch_norm_legit.no_stats
_native_batch_norm_legit_no_training.default _pdist_forward.default _softmax.default
_to_copy.default abs.default acos.default acosh.default adaptive_avg_pool1d.default add.Scalar
add.Tensor addmm.default alias.default amax.default amin.default any.default any.dim any.dims
arange.start_step argmax.default argmin.default as_strided.default asin.default asinh.default
atan.default atan2.default atanh.default avg_pool1d.default avg_pool2d.default
avg_pool2d_backward.default avg_pool3d.default bitwise_and.Scalar bitwise_and.Tensor
bitwise_not.default bitwise_or.Scalar bitwise_or.Tensor bitwise_xor.Scalar bitwise_xor.Tensor
bmm.default cat.default ceil.default clamp.default clamp.Tensor clone.default col2im.default
constant_pad_nd.default convolution.default convolution_backward.default copy.default cos.default
cosh.default cumsum.default diagonal.default div.Scalar div.Scalar_mode div.Tensor
div.Tensor_mode elu.default embedding.default embedding_dense_backward.default
empty.memory_format empty_strided.default eq.Scalar eq.Tensor erf.default exp.default
expand.default expm1.default fill.Scalar flip.default floor.default fmod.Scalar fmod.Tensor
full.default full_like.default gather.default ge.Scalar ge.Tensor gelu.default
grid_sampler_2d.default gt.Scalar gt.Tensor hardtanh.default index.Tensor index_put.default
index_select.default isinf.default isnan.default le.Scalar le.Tensor leaky_relu.default
log.default log10.default log1p.default log2.default logical_and.default logical_not.default
logical_or.default logical_xor.default lt.Scalar lt.Tensor max.dim
max_pool2d_with_indices.default max_pool2d_with_indices_backward.default
max_pool3d_with_indices.default maximum.default mean.default mean.dim min.dim minimum.default
mm.default mul.Scalar mul.Tensor native_dropout.default native_group_norm.default
native_group_norm_backward.default native_layer_norm.default native_layer_norm_backward.default
ne.Scalar ne.Tensor neg.default nonzero.default permute.default pow.Scalar pow.Tensor_Scalar
pow.Tensor_Tensor prod.default prod.dim_int rand.default randn.default randperm.default
reciprocal.default reflection_pad1d.default reflection_pad2d.default reflection_pad3d.default
relu.default remainder.Scalar remainder.Tensor repeat.default replication_pad2d.default
replication_pad3d.default resize_.default round.default rsqrt.default scalar_tensor.default
scatter.src scatter.value scatter_add.default scatter_reduce.two select.int
select_scatter.default sigmoid.default sign.default sin.default sinh.default slice.Tensor
slice_scatter.default sort.default split_with_sizes.default sqrt.default squeeze.dim
squeeze.dims sub.Scalar sub.Tensor sum.dim_IntList sym_numel.default sym_size.int
sym_storage_offset.default sym_stride.int tan.default tanh.default topk.default trunc.default
unsqueeze.default upsample_bilinear2d.vec upsample_nearest2d.vec var.correction var.dim
view.default where.self
"""

SPECIALIZED = ("sym_size", "sym_stride", "sym_numel", "sym_storage_offset",
               "_local_scalar_dense")


def core_ops():
    """(op names, where the list came from)."""
    tag = getattr(getattr(torch, "Tag", None), "core", None)
    if tag is None:
        return ["aten." + n for n in CORE_ATEN.split()], "the published list (this torch has no Tag.core)"
    names = []
    # Every registered schema (dir(torch.ops.aten) lists only the ops loaded so far).
    for schema in torch._C._jit_get_all_schemas():
        namespace, _, base = schema.name.partition("::")
        if namespace != "aten":
            continue
        try:
            op = getattr(getattr(torch.ops.aten, base), schema.overload_name or "default")
        except (AttributeError, RuntimeError):
            continue
        if tag in getattr(op, "tags", ()):
            names.append(str(op))
    return sorted(set(names)), "torch %s's Tag.core" % torch.__version__


def status(name):
    base = name.split(".")[1]
    if name in HANDLERS:
        return "mapped"
    if base in SPECIALIZED:
        return "specialized (a size, or .item()'s recorded value)"
    if any(w in base for w in RANDOM_WORDS):
        return "random: values recorded as inputs (random='inputs'), else refused"
    return "unsupported"


def main(argv):
    names, source = core_ops()
    rows = [(n, status(n)) for n in names]
    mapped = sum(1 for _, s in rows if s == "mapped" or s.startswith("specialized"))
    if "--markdown" in argv:
        print("| op | status |\n| --- | --- |")
        for n, s in rows:
            print("| `%s` | %s |" % (n, s))
    else:
        for n, s in rows:
            print("%-50s %s" % (n, s))
    print("\n%d of %d core ATen ops mapped or specialized (%s)" % (mapped, len(rows), source))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
