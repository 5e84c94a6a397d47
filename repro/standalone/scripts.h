// The fixed scripts of standalone reproducers (scripts/ beside this file),
// compiled in by a genrule so that the reprokit binary writes them from
// anywhere. Each reads the expected.json written beside it (standalone.h).
#ifndef REPROKIT_REPRO_STANDALONE_SCRIPTS_H_
#define REPROKIT_REPRO_STANDALONE_SCRIPTS_H_

namespace rk::repro {

// Python repro.py files are a head (docstring, imports, helpers), the judging
// rule (judge.py, numpy only), for Inductor and XLA the generated graph function, and
// a main.
extern const char kJudgePy[];      // scripts/judge.py
extern const char kOrtHeadPy[];    // scripts/ort_head.py: onnxruntime + numpy
extern const char kOrtMainPy[];    // scripts/ort_main.py
extern const char kOrtReproJs[];   // scripts/ort_repro.js: onnxruntime-node, whole
extern const char kTorchHeadPy[];  // scripts/torch_head.py: torch + numpy, op helpers
extern const char kTorchMainPy[];  // scripts/torch_main.py
extern const char kJaxHeadPy[];    // scripts/jax_head.py: jax + numpy, op helpers
extern const char kJaxMainPy[];    // scripts/jax_main.py

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_STANDALONE_SCRIPTS_H_
