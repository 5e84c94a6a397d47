#include "repro/oracle/signature.h"

#include "gtest/gtest.h"

namespace rk::repro {
namespace {

TEST(NormalizeMessageTest, StripsWhatVaries) {
  EXPECT_EQ(NormalizeMessage("node %41 (relu): shape [8,128] at 0x7ffd1234 in /tmp/x/y.rk:3:17"),
            "node %N (relu): shape [N] at H in PATH:N:N");
  EXPECT_EQ(NormalizeMessage("injected fault: relu:compile_error"),
            "injected fault: relu:compile_error");
  EXPECT_EQ(NormalizeMessage("value 'abc' and \"def\"   spaced"), "value 'S' and 'S' spaced");
  EXPECT_EQ(NormalizeMessage("tol 1.5e-3 vs 2"), "tol N vs N");
}

TEST(NormalizeMessageTest, SameFailureSameTextAcrossGraphs) {
  EXPECT_EQ(NormalizeMessage("node %7 (exp): declared type f32[4] but inference gives f32[8]"),
            NormalizeMessage("node %x.1 (exp): declared type f32[16] but inference gives f32[2]"));
}

// What an external compiler writes: generated node names, line numbers,
// paths in parentheses, shapes of any rank. Two graphs with the same cause
// give the same text; different causes stay apart.
TEST(NormalizeMessageTest, ExternalBackendMessagesOfOneCauseAgree) {
  const std::string a = NormalizeMessage(
      "[ONNXRuntimeError] : 1 : FAIL : Load model failed:This is an invalid model. Type Error: "
      "Type (tensor(bool)) of input parameter (v9) of operator (Greater) in node (v9_2) is "
      "invalid. (/onnxruntime_src/onnxruntime/core/graph/graph.cc:1340)");
  const std::string b = NormalizeMessage(
      "[ONNXRuntimeError] : 1 : FAIL : Load model failed:This is an invalid model. Type Error: "
      "Type (tensor(bool)) of input parameter (v16) of operator (Greater) in node (v16) is "
      "invalid. (/other/build/onnxruntime/core/graph/graph.cc:1344)");
  EXPECT_EQ(a, b);
  EXPECT_NE(a.find("tensor(bool)"), std::string::npos) << a;
  EXPECT_NE(a.find("(Greater)"), std::string::npos) << a;
  // Another operator or another dtype is another cause.
  EXPECT_NE(a, NormalizeMessage("[ONNXRuntimeError] : 1 : FAIL : Load model failed:This is an "
                                "invalid model. Type Error: Type (tensor(bool)) of input "
                                "parameter (v9) of operator (Less) in node (v9) is invalid."));
  EXPECT_NE(NormalizeMessage("Type (tensor(int32)) of input (x0)"),
            NormalizeMessage("Type (tensor(int64)) of input (x0)"));
  EXPECT_EQ(NormalizeMessage("X.shape={8,2,1} input shape {0,2}"),
            NormalizeMessage("X.shape={3,4} input shape {0, 2, 7}"));
  EXPECT_EQ(NormalizeMessage("tensor 4x8x16 vs 2x2"), "tensor N vs N");
  EXPECT_EQ(NormalizeMessage("element 3: -7 floordiv 0"), NormalizeMessage("element 1: 5 floordiv 0"));
  EXPECT_EQ(NormalizeMessage("a - b, x-1"), "a - b, x-N");
  // Dtypes and ops with digits keep them; an apostrophe is not a quote.
  EXPECT_EQ(NormalizeMessage("f32 bf16 int64 conv2d atan2 node_12 n3"),
            "f32 bf16 int64 conv2d atan2 node_N nN");
  EXPECT_EQ(NormalizeMessage("can't fuse 'v3'"), "can't fuse 'S'");
}

// PyTorch's messages end with the user code and FX node being traced and
// carry the failing call's arguments: different in every graph, the same
// cause (as seen from torch.compile 2.11 on CUDA).
TEST(NormalizeMessageTest, PythonCompilerContextIsNotTheCause) {
  const std::string head =
      "TorchRuntimeError: RuntimeError when making fake tensor call\n  Explanation: Dynamo "
      "failed to run FX node with fake tensors: call_function <built-in method broadcast_to of "
      "type object at 0x7f77ad33e180>";
  const std::string tail =
      ": got RuntimeError('expand: the requested shape has too few dimensions!')\n  Hint: see "
      "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb4315.html\nfrom user code:\n"
      "   File \"<eval_with_key>.808\", line 7, in forward\n    rk_broadcast_to = "
      "__main___rk_broadcast_to(";
  const std::string a = NormalizeMessage(
      head + "(*(FakeTensor(..., device='cuda:0', size=(2, 1, 1), dtype=torch.bool), [2, 2]), "
             "**{})" + tail + "rk_gather, [2, 2]);  rk_gather = None");
  const std::string b = NormalizeMessage(
      head + "(*(FakeTensor(..., device='cuda:0', size=(1,)), []), **{})" + tail +
      "round_1, []);  round_1 = None");
  EXPECT_EQ(a, b);
  EXPECT_NE(a.find("broadcast_to"), std::string::npos) << a;
  EXPECT_NE(a.find("got RuntimeError"), std::string::npos) << a;
  EXPECT_EQ(a.find("user code"), std::string::npos) << a;
  // A traceback: its exception line is the message.
  EXPECT_EQ(NormalizeMessage("Traceback (most recent call last):\n  File \"/x/serve\", line 12, in "
                             "run\n    y = f(v9)\nValueError: bad axis 3\n"),
            "ValueError: bad axis N");
}

// Normalizing twice changes nothing, so a compile error recorded under
// older rules (a bundle's expected signature) parses as today's.
TEST(NormalizeMessageTest, IdempotentAndOldRecordsReadAsNew) {
  for (const char* m :
       {"node %41 (relu): shape [8,128] at 0x7ffd1234 in /tmp/x/y.rk:3:17",
        "Type (tensor(bool)) of input parameter (v9) of operator (Greater) in node (v9_2)",
        "element 3: -7 floordiv 0; tensor 4x8x16; can't fuse 'v3'; X.shape={8,2,1}"}) {
    const std::string once = NormalizeMessage(m);
    EXPECT_EQ(NormalizeMessage(once), once) << m;
  }
  absl::StatusOr<Signature> old = Signature::Parse("compile_error:INTERNAL:shape [N,N] of v9");
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(*old, CompileErrorSignature("INTERNAL", "shape [8,128] of v16"));
}

TEST(SignatureTest, ShapeMismatchSaysHowNotHowBig) {
  EXPECT_EQ(ShapeMismatchSignature("reduce_sum", "f32[]", "f32[1]").ToString(),
            "shape_mismatch:reduce_sum:rank:+1");
  EXPECT_EQ(ShapeMismatchSignature("reduce_sum", "f32[64]", "f32[1,64]"),
            ShapeMismatchSignature("reduce_sum", "f32[8]", "f32[1,8]"));
  EXPECT_EQ(ShapeMismatchSignature("relu", "f32[4,8]", "f64[4,8]").ToString(),
            "shape_mismatch:relu:dtype:f32->f64");
  EXPECT_EQ(ShapeMismatchSignature("relu", "f32[4,8]", "f32[8,4]").ToString(),
            "shape_mismatch:relu:dims");
  EXPECT_EQ(ShapeMismatchSignature("relu", "f32[4,8]", "f32[32]").ToString(),
            "shape_mismatch:relu:rank:-1");
  absl::StatusOr<Signature> parsed = Signature::Parse("shape_mismatch:relu:dtype:f32->f64");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->kind, VerdictKind::kShapeMismatch);
  EXPECT_TRUE(IsFailure(VerdictKind::kShapeMismatch));
}

TEST(NormalizeFrameTest, ReducesToFunction) {
  EXPECT_EQ(NormalizeFrame("/usr/bin/reprokit(_ZN2rk5Lower+0x1f) [0x55d0c0ffee]"), "_ZN2rk5Lower");
  EXPECT_EQ(NormalizeFrame("rk::compiler::Lower(Graph const&)+0x1f"), "rk::compiler::Lower");
  EXPECT_EQ(NormalizeFrame("[0x55d0c0ffee]"), "?");
  EXPECT_EQ(NormalizeFrame("0x55d0c0ffee rk::compiler::FaultSet::Fire()"),
            "rk::compiler::FaultSet::Fire");
  EXPECT_EQ(NormalizeFrame("0x55d0c0ffee (unknown)"), "?");
}

TEST(SignatureTest, RoundTripsEveryForm) {
  std::vector<Signature> sigs = {
      {VerdictKind::kPass, ""},
      CompileErrorSignature("INTERNAL", "injected fault: relu:compile_error at %3"),
      CrashSignature("SIGSEGV", {"a(f+0x1) [0x1]", "b(g+0x2) [0x2]", "c(h+0x3) [0x3]", "d"}, "x"),
      CrashSignature("SIGSEGV", {}, "compile:fusion"),
      TimeoutSignature("compile"),
      AccuracySignature("miscompile", "relu", "f32"),
      NondeterministicSignature("add", "f16"),
  };
  for (const Signature& s : sigs) {
    absl::StatusOr<Signature> parsed = Signature::Parse(s.ToString());
    ASSERT_TRUE(parsed.ok()) << s.ToString();
    EXPECT_EQ(*parsed, s) << s.ToString();
  }
  EXPECT_EQ(TimeoutSignature("run").ToString(), "timeout@run");
  EXPECT_EQ(CrashSignature("SIGSEGV", {}, "compile").ToString(), "crash:SIGSEGV@compile");
  EXPECT_EQ(AccuracySignature("precision", "reduce_sum", "bf16").ToString(),
            "accuracy:precision:reduce_sum:bf16");
}

TEST(SignatureTest, CrashKeepsTopThreeFrames) {
  Signature s = CrashSignature("SIGABRT", {"/x/bin(a+0x1) [0x1]", "/x/bin(b+0x2) [0x2]",
                                           "/x/bin(c+0x3) [0x3]", "/x/bin(d+0x4) [0x4]"},
                               "compile");
  EXPECT_EQ(s.detail, "SIGABRT:a|b|c");
}

TEST(SignatureTest, UnknownKindIsAnError) {
  EXPECT_FALSE(Signature::Parse("explosion:big").ok());
  EXPECT_FALSE(ParseVerdictKind("").ok());
}

TEST(SignatureTest, FailureKinds) {
  EXPECT_FALSE(IsFailure(VerdictKind::kPass));
  EXPECT_FALSE(IsFailure(VerdictKind::kCannotJudge));
  EXPECT_TRUE(IsFailure(VerdictKind::kAccuracy));
  EXPECT_TRUE(IsFailure(VerdictKind::kCrash));
}

}  // namespace
}  // namespace rk::repro
