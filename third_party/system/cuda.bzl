"""A repository with the CUDA toolkit's driver API headers, when present.

The CUDA driver is loaded with dlopen at run time, so only headers are needed.
When /usr/local/cuda is missing the library is empty and defines
REPROKIT_NO_CUDA_HEADERS; the GPU backend then reports Unavailable.
"""

def _impl(ctx):
    root = ctx.os.environ.get("CUDA_PATH", "/usr/local/cuda")
    header = ctx.path(root + "/include/cuda.h")
    if header.exists:
        ctx.symlink(root + "/include", "include")
        ctx.file("BUILD.bazel", """
cc_library(
    name = "cuda_headers",
    hdrs = glob(["include/*.h", "include/crt/*.h"]),
    includes = ["include"],
    visibility = ["//visibility:public"],
)
""")
    else:
        ctx.file("BUILD.bazel", """
cc_library(
    name = "cuda_headers",
    defines = ["REPROKIT_NO_CUDA_HEADERS"],
    visibility = ["//visibility:public"],
)
""")

cuda_headers_repository = repository_rule(
    implementation = _impl,
    environ = ["CUDA_PATH"],
    local = True,
)
