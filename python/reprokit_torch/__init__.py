"""reprokit_torch: failing PyTorch compiles -> reprokit bundles (docs/PYTORCH.md).

    import reprokit_torch
    model = torch.compile(model, backend=reprokit_torch.backend("inductor", out="bugs/"))
    reprokit_torch.save(gm, example_inputs, "bug/")   # any FX graph and its inputs

Needs torch and numpy only; `reprokit` itself is used when found (to judge).
"""

from .accuracy import same_within_tolerance, rmse
from .capture import backend
from .bundle import save
from .convert import UnsupportedOpsError, convert

__all__ = ["backend", "save", "convert", "UnsupportedOpsError", "same_within_tolerance", "rmse"]
