// The README.md written into every bundle: what fails, its signature, where
// it was captured and the commands that rerun, check, shrink and share it.
// Generated from the bundle; regenerated on every write, never edited.
//
// Tested by repro/bundle/bundle_test.cc.
#ifndef REPROKIT_REPRO_BUNDLE_README_H_
#define REPROKIT_REPRO_BUNDLE_README_H_

#include <string>

#include "repro/bundle/bundle.h"

namespace rk::repro {

std::string RenderBundleReadme(const Bundle& bundle, const std::string& hash);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_BUNDLE_README_H_
