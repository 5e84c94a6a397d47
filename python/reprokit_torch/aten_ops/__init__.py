"""Handlers: one ATen op (or a family) -> reprokit ops (the table in docs/PYTORCH.md).

Each handler gets the converter (its emit helpers), the converted args and
kwargs (Values for tensors, Python values for the rest, sizes specialized) and
the real result torch computed, whose dtype and shape it reproduces; it
returns a Value, a tuple of them (Lazy for elements built only when used), or
raises Refused for a use it cannot express. One module per op family registers
its handlers in HANDLERS.
Tested by python/tests/test_convert.py, op family by op family.
"""

from .common import HANDLERS
from . import elementwise, layout, reductions, nn, gradients, scatter  # noqa: F401 (register)

__all__ = ["HANDLERS"]
