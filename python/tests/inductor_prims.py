"""Inductor's pooling prims (torch 2.5+) for torch 1.13, where they do not exist.

Defined here with reference implementations from max_pool2d's indices, so that
make_fx graphs can hold them as Inductor's decompositions leave them; used by
test_convert.py. On a torch that has them, the real ones are used.
"""

import torch
import torch.nn.functional as F


def _window_origin(shape_hw, stride, padding):
    oh = torch.arange(shape_hw[0]).view(-1, 1) * stride[0] - padding[0]
    ow = torch.arange(shape_hw[1]).view(1, -1) * stride[1] - padding[1]
    return oh, ow


def _with_offsets(x, kernel, stride, padding, dilation, ceil_mode):
    values, idx = F.max_pool2d(x, kernel, stride, padding, dilation, ceil_mode=ceil_mode,
                               return_indices=True)
    oh, ow = _window_origin(values.shape[-2:], stride, padding)
    width = x.shape[-1]
    ih, iw = idx // width, idx % width
    offsets = ((ih - oh) // dilation[0]) * kernel[1] + (iw - ow) // dilation[1]
    return values, offsets.to(torch.int8)


def _offsets_to_indices(offsets, kernel, input_size, stride, padding, dilation):
    oh, ow = _window_origin(offsets.shape[-2:], stride, padding)
    o = offsets.long()
    ih = oh + (o // kernel[1]) * dilation[0]
    iw = ow + (o % kernel[1]) * dilation[1]
    return ih * input_size[-1] + iw


def _define():
    try:
        torch.ops.prims._low_memory_max_pool_with_offsets.default
        return
    except (AttributeError, RuntimeError):
        pass
    # torch 1.13's Library() has no FRAGMENT kind, and prims is already defined.
    lib = torch.library.Library.__new__(torch.library.Library)
    lib.m = torch._C._dispatch_library("FRAGMENT", "prims", "", __file__, 0)
    lib.ns, lib.kind, lib.dispatch_key, lib._op_impls = "prims", "FRAGMENT", "", set()
    lib.define("_low_memory_max_pool_with_offsets(Tensor self, int[2] kernel_size, "
               "int[2] stride, int[2] padding, int[2] dilation, bool ceil_mode) "
               "-> (Tensor, Tensor)")
    lib.define("_low_memory_max_pool_offsets_to_indices(Tensor self, int[2] kernel_size, "
               "int[2] input_size, int[2] stride, int[2] padding, int[2] dilation) -> Tensor")
    lib.impl("_low_memory_max_pool_with_offsets", _with_offsets, "CPU")
    lib.impl("_low_memory_max_pool_offsets_to_indices", _offsets_to_indices, "CPU")
    return lib


_LIBRARY = _define()  # kept alive: the registration ends with the object
with_offsets = torch.ops.prims._low_memory_max_pool_with_offsets.default
offsets_to_indices = torch.ops.prims._low_memory_max_pool_offsets_to_indices.default
