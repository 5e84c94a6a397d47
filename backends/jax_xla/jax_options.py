"""The jax_xla adapter's options (backends/jax_xla/serve): which there are, their
defaults, and how a request's option texts become settings.

Pure Python, no jax, so it is tested where jax is not installed:
jax_options_test.py beside it (//backends:jax_options_test).

  jit                            true (jax.jit: one XLA program for the graph) or
                                 false (op by op: each jax op dispatched alone, no
                                 fusion or whole-graph optimization; what triage
                                 compares against)
  jax_default_matmul_precision   highest (the adapter's default: f32 matmul and conv
                                 in f32, as docs/COMPILER.md says), or jax's own
                                 values: default, high, bfloat16, tensorfloat32,
                                 float32 (on a GPU `default` lets XLA use TF32)
  xla_*                          XLA debug options, given to that one compile
                                 (jax's Lowered.compile(compiler_options=...));
                                 declared only where this jaxlib's XLA knows them
  inject_relu_bug_TESTING_ONLY   the adapter's own planted fault, for testing the
                                 harness: accuracy (relu's result + 1 in compiled
                                 code, jit=true only) or compile_error (a compile
                                 of a graph with relu fails)
"""

PLANTED_KEY = "inject_relu_bug_TESTING_ONLY"
PLANTED_VALUES = ("", "accuracy", "compile_error")
PRECISIONS = ("highest", "default", "high", "bfloat16", "tensorfloat32", "float32")

# XLA debug options that change what a compiled program computes or how it is
# built, with their types. XLA's DebugOptions change between releases: the
# adapter declares only those a probe compile accepts (serve, probe_xla_options).
XLA_OPTIONS = (
    ("xla_cpu_enable_fast_math", bool, "XLA:CPU unsafe math (approximate functions, no NaN/Inf)"),
    ("xla_cpu_enable_fast_min_max", bool, "XLA:CPU max/min that need not propagate NaN"),
    ("xla_gpu_enable_fast_min_max", bool, "XLA:GPU max/min that need not propagate NaN"),
    ("xla_allow_excess_precision", bool,
     "keep bf16/f16 intermediates wider than their dtype (XLA's default: true)"),
    ("xla_backend_optimization_level", int, "LLVM optimization level of the backend (0-3)"),
    ("xla_llvm_disable_expensive_passes", bool, "skip LLVM's expensive passes"),
    ("xla_gpu_autotune_level", int, "XLA:GPU gemm/conv autotuning (0 off .. 4 checked)"),
    ("xla_gpu_enable_triton_gemm", bool, "XLA:GPU matmul fusions through Triton"),
    ("xla_gpu_enable_cublaslt", bool, "XLA:GPU matmuls through cuBLASLt"),
    ("xla_gpu_ftz", bool, "XLA:GPU flush denormals to zero"),
    ("xla_gpu_disable_gpuasm_optimizations", bool, "XLA:GPU ptxas at -O0"),
    ("xla_gpu_deterministic_ops", bool, "XLA:GPU deterministic kernels (no atomics)"),
)
XLA_TYPES = {name: kind for name, kind, _ in XLA_OPTIONS}


class OptionError(ValueError):
    """An option the adapter does not know, or a value it cannot take."""


class Settings:
    """One request's options, parsed."""

    def __init__(self):
        self.jit = True
        self.precision = "highest"
        self.planted = ""
        self.compiler_options = {}  # XLA debug option -> bool / int

    def fault_active(self):
        """The planted accuracy fault is in compiled code only (jit=true)."""
        return self.jit and self.planted == "accuracy"


def parse_bool(key, text):
    low = text.strip().lower()
    if low in ("1", "true", "yes", "on"):
        return True
    if low in ("0", "false", "no", "off"):
        return False
    raise OptionError("%s takes true or false, got %r" % (key, text))


def parse_value(key, text, kind):
    if kind is bool:
        return parse_bool(key, text)
    try:
        return int(text.strip())
    except ValueError:
        raise OptionError("%s takes an integer, got %r" % (key, text)) from None


def parse_options(options, xla_declared):
    """options: str -> str from the request; xla_declared: the XLA option names
    this process declared. Returns Settings; OptionError names the first bad one
    (unknown keys listed with what is declared)."""
    settings = Settings()
    unknown = []
    for key in sorted(options):
        text = options[key]
        if key == "jit":
            settings.jit = parse_bool(key, text)
        elif key == "jax_default_matmul_precision":
            if text not in PRECISIONS:
                raise OptionError("jax_default_matmul_precision must be one of %s, got %r"
                                  % ("|".join(PRECISIONS), text))
            settings.precision = text
        elif key == PLANTED_KEY:
            if text not in PLANTED_VALUES:
                raise OptionError("%s must be one of accuracy|compile_error, got %r"
                                  % (PLANTED_KEY, text))
            settings.planted = text
        elif key in xla_declared:
            settings.compiler_options[key] = parse_value(key, text, XLA_TYPES[key])
        else:
            unknown.append(key)
    if unknown:
        raise OptionError("unknown option%s %s (jax_xla declares: %s)" % (
            "s" if len(unknown) > 1 else "", ", ".join(unknown),
            ", ".join(declared_names(xla_declared))))
    return settings


def declared_names(xla_declared):
    return ["jit", "jax_default_matmul_precision", PLANTED_KEY] + sorted(xla_declared)


def hello_options(xla_declared):
    """The hello's option list: {name, default, help}."""
    out = [{"name": "jit", "default": "true",
            "help": "true: jax.jit (one XLA program); false: op by op, no whole-graph "
                    "optimization"},
           {"name": "jax_default_matmul_precision", "default": "highest",
            "help": "matmul/conv precision of f32: " + "|".join(PRECISIONS)},
           {"name": PLANTED_KEY, "default": "",
            "help": "testing the harness (the adapter's own planted fault): accuracy "
                    "(compiled relu + 1) or compile_error"}]
    for name, kind, help_text in XLA_OPTIONS:
        if name in xla_declared:
            out.append({"name": name, "default": "xla",
                        "help": "XLA debug option (%s): %s" % (kind.__name__, help_text)})
    return out
