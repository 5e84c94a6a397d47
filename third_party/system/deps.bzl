"""Declares the system libraries reprokit builds against.

All of them come from Debian 12 packages (see tools/install_deps.sh); nothing is
downloaded. A separate workspace that uses reprokit as a local_repository calls
this macro too, with `reprokit_repo` naming that repository.
"""

load(":cuda.bzl", "cuda_headers_repository")

def reprokit_system_deps(reprokit_repo = ""):
    prefix = "@" + reprokit_repo if reprokit_repo else "@"
    native.new_local_repository(
        name = "llvm",
        path = "/usr/lib/llvm-19",
        build_file = prefix + "//third_party/system:llvm.BUILD",
    )
    for name in ["absl", "zstd", "openssl", "curl", "gtest", "benchmark", "cereal", "onnx"]:
        native.new_local_repository(
            name = "system_" + name,
            # Headers come from /usr/include (a system include directory); the
            # repository root only has to exist and must not shadow them.
            path = "/usr/lib/x86_64-linux-gnu",
            build_file = prefix + "//third_party/system:" + name + ".BUILD",
        )
    # ONNX's schema, for --config=static: onnx.BUILD compiles it with the system
    # protoc, as Debian ships ONNX's protobuf classes only in a shared library.
    native.new_local_repository(
        name = "system_onnx_schema",
        path = "/usr/include/onnx",
        build_file_content = 'exports_files(["onnx.proto"])',
    )
    cuda_headers_repository(name = "cuda_headers")
