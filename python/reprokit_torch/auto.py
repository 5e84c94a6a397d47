"""`import reprokit_torch.auto`: capture from a program one cannot edit.

    REPROKIT_TORCH_CAPTURE=accuracy REPROKIT_TORCH_OUT=bugs/ python train.py

with `import reprokit_torch.auto` in a sitecustomize.py on PYTHONPATH (or at
the top of the program). When REPROKIT_TORCH_CAPTURE is compile, runtime or
accuracy, torch.compile's backend is wrapped: every torch.compile call, whatever
backend it names (default "inductor"), goes through reprokit_torch.backend.
REPROKIT_TORCH_STAGE picks aot (default) or dynamo. Unset or "off": nothing
changes. Tested by python/tests/test_backend.py (the environment parsing; the
wrapping needs torch.compile, torch >= 2).
"""

import os
import sys

from . import capture as _backend


def settings(environ=None):
    environ = os.environ if environ is None else environ
    level = environ.get("REPROKIT_TORCH_CAPTURE", "off").strip().lower()
    if level in ("", "off", "0", "false"):
        return None
    if level not in _backend.LEVELS:
        raise ValueError("REPROKIT_TORCH_CAPTURE=%s: expected off, %s" % (
            level, ", ".join(_backend.LEVELS)))
    stage = environ.get("REPROKIT_TORCH_STAGE", "aot").strip().lower()
    if stage not in _backend.STAGES:
        raise ValueError("REPROKIT_TORCH_STAGE=%s: expected aot or dynamo" % stage)
    return {"level": level, "stage": stage, "out": environ.get("REPROKIT_TORCH_OUT", "bugs")}


def install(environ=None):
    """Wraps torch.compile; returns the settings, or None when capture is off."""
    config = settings(environ)
    if config is None:
        return None
    import torch
    if not hasattr(torch, "compile"):
        sys.stderr.write("reprokit_torch.auto: torch %s has no torch.compile; nothing to wrap\n"
                         % torch.__version__)
        return config
    original = torch.compile
    if getattr(original, "_reprokit_wrapped", False):
        return config

    def compile(model=None, *args, backend="inductor", **kwargs):
        wrapped = _backend.backend(backend, **config)
        if model is None:
            return original(*args, backend=wrapped, **kwargs)
        return original(model, *args, backend=wrapped, **kwargs)
    compile._reprokit_wrapped = True
    compile.__doc__ = original.__doc__
    torch.compile = compile
    return config


install()
