#!/usr/bin/env python3
"""Runs model.onnx with ONNX Runtime at the settings in expected.json and
compares every output with the values beside it. Needs onnxruntime and numpy
only. Exit: 1 while the discrepancy is present, 0 once fixed, 2 cannot test
(no onnxruntime, no CUDA provider), 3 cannot judge (NaN in the fp64 values).

Rule (reprokit's "torch" accuracy policy): an output passes when it is
allclose to the reference computed in its own dtype (reference_*.npy, atol =
rtol = tol); else when its RMSE against the fp64 values (expected_*.npy) is at
most `bound` = m x the RMSE of that reference against fp64 + tol/10. Integer
and bool outputs must equal the reference exactly.
"""
import json
import os
import sys

import numpy as np

try:
    import onnxruntime as ort
except ImportError as e:
    print("cannot test: %s (pip install onnxruntime)" % e)
    sys.exit(2)

