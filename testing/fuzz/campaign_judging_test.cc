#include "testing/fuzz/campaign_judging.h"

#include "gtest/gtest.h"

namespace rk::fuzz {
namespace {

repro::Verdict MakeVerdict(repro::VerdictKind kind, std::string detail,
                           std::string subkind = "") {
  repro::Verdict v;
  v.kind = kind;
  v.signature = {kind, std::move(detail)};
  v.accuracy_subkind = std::move(subkind);
  return v;
}

// The minimizer keeps a candidate while this key holds: the op that shows an
// accuracy failure or a wrong type may move upstream; other kinds keep all.
TEST(RootCauseKeyTest, WhatMustStayTheSame) {
  using K = repro::VerdictKind;
  EXPECT_EQ(RootCauseInterestingness::Key(MakeVerdict(K::kAccuracy, "relu:f32", "miscompile")),
            RootCauseInterestingness::Key(MakeVerdict(K::kAccuracy, "mul:f16", "miscompile")));
  EXPECT_NE(RootCauseInterestingness::Key(MakeVerdict(K::kAccuracy, "relu:f32", "miscompile")),
            RootCauseInterestingness::Key(MakeVerdict(K::kAccuracy, "relu:f32", "precision")));
  EXPECT_EQ(RootCauseInterestingness::Key(MakeVerdict(K::kShapeMismatch, "reduce_sum:rank:+1")),
            "shape_mismatch:rank:+1");
  EXPECT_EQ(RootCauseInterestingness::Key(MakeVerdict(K::kShapeMismatch, "relu:rank:+1")),
            RootCauseInterestingness::Key(MakeVerdict(K::kShapeMismatch, "exp:rank:+1")));
  EXPECT_EQ(RootCauseInterestingness::Key(MakeVerdict(K::kNondeterministic, "add")),
            "nondeterministic");
  EXPECT_NE(RootCauseInterestingness::Key(MakeVerdict(K::kCompileError, "a")),
            RootCauseInterestingness::Key(MakeVerdict(K::kCompileError, "b")));
}

}  // namespace
}  // namespace rk::fuzz
