#!/usr/bin/python3
"""Tests of the jax_xla adapter's options (jax_options.py): defaults, parsing,
the planted fault only in compiled code, XLA options typed and only where
declared, unknown keys refused with the declared ones listed, and the hello's
option list. No jax needed (run by //backends:jax_options_test).
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import jax_options as jo  # noqa: E402

DECLARED = {"xla_cpu_enable_fast_math", "xla_backend_optimization_level"}


class ParseOptionsTest(unittest.TestCase):
    def test_defaults(self):
        s = jo.parse_options({}, DECLARED)
        self.assertTrue(s.jit)
        self.assertEqual(s.precision, "highest")
        self.assertEqual(s.planted, "")
        self.assertEqual(s.compiler_options, {})
        self.assertFalse(s.fault_active())

    def test_jit_and_precision(self):
        s = jo.parse_options({"jit": "false", "jax_default_matmul_precision": "default"},
                             DECLARED)
        self.assertFalse(s.jit)
        self.assertEqual(s.precision, "default")
        self.assertTrue(jo.parse_options({"jit": "True"}, DECLARED).jit)
        with self.assertRaisesRegex(jo.OptionError, "jit takes true or false, got 'maybe'"):
            jo.parse_options({"jit": "maybe"}, DECLARED)
        with self.assertRaisesRegex(jo.OptionError, "highest\\|default"):
            jo.parse_options({"jax_default_matmul_precision": "fp8"}, DECLARED)

    def test_planted_fault_is_in_compiled_code_only(self):
        s = jo.parse_options({jo.PLANTED_KEY: "accuracy"}, DECLARED)
        self.assertTrue(s.fault_active())
        s = jo.parse_options({jo.PLANTED_KEY: "accuracy", "jit": "false"}, DECLARED)
        self.assertFalse(s.fault_active())
        s = jo.parse_options({jo.PLANTED_KEY: "compile_error"}, DECLARED)
        self.assertEqual(s.planted, "compile_error")
        self.assertFalse(s.fault_active())
        with self.assertRaisesRegex(jo.OptionError, "accuracy\\|compile_error, got 'segv'"):
            jo.parse_options({jo.PLANTED_KEY: "segv"}, DECLARED)

    def test_xla_options_are_typed(self):
        s = jo.parse_options({"xla_cpu_enable_fast_math": "true",
                              "xla_backend_optimization_level": "0"}, DECLARED)
        self.assertIs(s.compiler_options["xla_cpu_enable_fast_math"], True)
        self.assertEqual(s.compiler_options["xla_backend_optimization_level"], 0)
        self.assertIsInstance(s.compiler_options["xla_backend_optimization_level"], int)
        with self.assertRaisesRegex(jo.OptionError, "takes an integer, got 'high'"):
            jo.parse_options({"xla_backend_optimization_level": "high"}, DECLARED)

    def test_unknown_and_undeclared_options_are_refused(self):
        with self.assertRaises(jo.OptionError) as cm:
            jo.parse_options({"no.such_key": "1"}, DECLARED)
        message = str(cm.exception)
        self.assertIn("unknown option no.such_key", message)
        self.assertIn("jit, jax_default_matmul_precision", message)
        self.assertIn("xla_cpu_enable_fast_math", message)
        # A known XLA option this jaxlib did not take is refused like any other.
        with self.assertRaisesRegex(jo.OptionError, "unknown option xla_gpu_ftz"):
            jo.parse_options({"xla_gpu_ftz": "true"}, DECLARED)
        with self.assertRaisesRegex(jo.OptionError, "unknown options a, b"):
            jo.parse_options({"b": "1", "a": "1"}, DECLARED)


class HelloOptionsTest(unittest.TestCase):
    def test_lists_the_fixed_options_and_only_declared_xla_ones(self):
        names = [o["name"] for o in jo.hello_options(DECLARED)]
        self.assertEqual(names[:3], ["jit", "jax_default_matmul_precision", jo.PLANTED_KEY])
        self.assertEqual(sorted(names[3:]), sorted(DECLARED))
        for o in jo.hello_options(DECLARED):
            self.assertTrue(o["help"])
            self.assertIsInstance(o["default"], str)

    def test_every_xla_option_has_a_type_the_compile_takes(self):
        for name, kind, help_text in jo.XLA_OPTIONS:
            self.assertTrue(name.startswith("xla_"), name)
            self.assertIn(kind, (bool, int), name)
            self.assertTrue(help_text)


if __name__ == "__main__":
    unittest.main()
