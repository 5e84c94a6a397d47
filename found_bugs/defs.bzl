"""Real bugs of the targets, as regression repros (docs/FOUND_BUGS.md).

    found_bug(name = "ort_fuse_relu_clip_f64")

for a folder found_bugs/<name>/ holding

  bundle/       the minimized reprokit bundle (graph.rk, repro.json, blobs/),
                captured with the target as its backend (--backend onnxruntime)
  standalone/   `reprokit export bundle --standalone standalone` (optional)

creates

  :<name>_known_failure
                      reprokit_repro with known_failure = True: PASSES while
                      the bug is still present in the installed target
                      ("still present in onnxruntime 1.30.0 (node)") and FAILS
                      once it no longer reproduces ("fixed in <version>?
                      remove known_failure"). Skipped (passes, says why) where
                      the backend is not installed.
  :<name>_standalone  where standalone/repro.js exists: runs it with the
                      Node.js ONNX Runtime, the same polarity (exit 1 of the
                      script = still present = pass).

A bug on CUDA is a folder whose name ends in "_cuda" (device = "cuda",
tagged requires-gpu).
"""

load("//repro:defs.bzl", "reprokit_repro")

def found_bug(name, timeout_seconds = 120):
    """The known-failure targets of one found bug (see the file comment)."""
    reprokit_repro(
        # Not `name`: a target named like the folder would shadow it in the runfiles.
        name = name + "_known_failure",
        bundle = native.glob([name + "/bundle/**"]),
        device = "cuda" if name.endswith("_cuda") else "cpu",
        known_failure = True,
        timeout_seconds = timeout_seconds,
        tags = ["found_bug"],
        size = "medium",
        data = ["//backends:adapters"],
    )
    scripts = native.glob([name + "/standalone/repro.js"])
    if scripts:
        native.sh_test(
            name = name + "_standalone",
            srcs = ["standalone_still_fails.sh"],
            args = [name + "/standalone"],
            data = native.glob([name + "/standalone/**"]) + ["//backends:adapters"],
            tags = ["found_bug"],
            size = "medium",
        )

def found_bugs():
    """found_bug for every folder with a bundle/repro.json."""
    for path in native.glob(["*/bundle/repro.json"]):
        found_bug(name = path.split("/")[0])
