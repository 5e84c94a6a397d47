// Differential tests: compiled code against the reference interpreter for
// every op and dtype, broadcasting, empty and size-1 dims, odd sizes, long
// reductions, layout ops, matmul and the numerics options.
#include "absl/strings/str_cat.h"
#include "compiler/driver/compile.h"
#include "compiler/driver/compile_test_util.h"
#include "gtest/gtest.h"

namespace rk::compiler {
namespace {

const char* const kFloatTypes[] = {"f32", "f64", "f16", "bf16"};

double Tolerance(const std::string& dtype) {
  if (dtype == "f16") return 2e-3;
  if (dtype == "bf16") return 1.6e-2;
  if (dtype == "f64") return 1e-12;
  if (dtype == "f32") return 1e-5;
  return 0;
}

void Check(const std::string& text, double rtol, const CompileOptions& options = {},
           const RandomSpec& spec = {}) {
  SCOPED_TRACE(text);
  absl::StatusOr<std::string> mismatch = CompareWithReference(text, options, rtol, spec);
  ASSERT_TRUE(mismatch.ok()) << mismatch.status();
  EXPECT_EQ(*mismatch, "");
}

TEST(CompileDiffTest, UnaryOpsEveryFloatType) {
  const char* const ops[] = {"neg", "abs",  "exp",     "log", "sqrt", "rsqrt", "reciprocal",
                             "tanh", "sigmoid", "relu", "erf", "sin",  "cos",   "gelu"};
  for (const char* dtype : kFloatTypes) {
    for (const char* op : ops) {
      const std::string t = absl::StrCat(dtype, "[3,37]");
      RandomSpec spec;
      spec.low = 0.1;
      spec.high = 3;
      const bool positive = std::string(op) == "log" || std::string(op) == "sqrt" ||
                            std::string(op) == "rsqrt";
      if (!positive) spec.low = -3;
      Check(absl::StrCat("graph @g(%x: ", t, ") {\n %y = ", op, "(%x) : ", t, "\n return %y\n}"),
            Tolerance(dtype), {}, spec);
    }
  }
}

TEST(CompileDiffTest, IntegerUnary) {
  for (const char* dtype : {"i32", "i64"}) {
    for (const char* op : {"neg", "abs"}) {
      const std::string t = absl::StrCat(dtype, "[5,9]");
      Check(absl::StrCat("graph @g(%x: ", t, ") {\n %y = ", op, "(%x) : ", t, "\n return %y\n}"), 0);
    }
  }
}

TEST(CompileDiffTest, BinaryOpsWithBroadcasting) {
  const char* const ops[] = {"add", "sub", "mul", "div", "maximum", "minimum", "pow"};
  for (const char* dtype : {"f32", "f64", "f16", "bf16", "i32", "i64"}) {
    for (const char* op : ops) {
      const bool is_int = dtype[0] == 'i';
      if (is_int && std::string(op) == "pow") continue;
      RandomSpec spec;
      spec.low = std::string(op) == "pow" ? 0.1 : -3;
      spec.high = 3;
      Check(absl::StrCat("graph @g(%x: ", dtype, "[4,1,19], %y: ", dtype, "[3,1]) {\n %z = ", op,
                         "(%x, %y) : ", dtype, "[4,3,19]\n return %z\n}"),
            is_int ? 0 : Tolerance(dtype), {}, spec);
    }
  }
}

TEST(CompileDiffTest, RoundingOpsEveryType) {
  RandomSpec spec;
  spec.low = -4;
  spec.high = 4;
  for (const char* dtype : kFloatTypes) {
    const std::string t = absl::StrCat(dtype, "[3,37]");
    for (const char* op : {"floor", "ceil", "round"}) {
      Check(absl::StrCat("graph @g(%x: ", t, ") {\n %y = ", op, "(%x) : ", t, "\n return %y\n}"),
            0, {}, spec);
    }
  }
  // Inputs on the half-way points, where round goes to even.
  spec.low = -8;
  spec.high = 8;
  Check(R"(graph @g(%x: f32[5,16]) {
    %h = full() {dtype=f32, shape=[], value=0.5} : f32[]
    %f = floor(%x) : f32[5,16]
    %y = add(%f, %h) : f32[5,16]
    %r = round(%y) : f32[5,16]
    return %r
  })",
        0, {}, spec);
  for (const char* dtype : {"f32", "f64", "f16", "bf16", "i32", "i64"}) {
    const std::string t = absl::StrCat(dtype, "[4,9]");
    for (const char* attrs : {" {max=1.5, min=-2.0}", " {min=0.5}", " {max=-1.0}", ""}) {
      Check(absl::StrCat("graph @g(%x: ", t, ") {\n %y = clip(%x)", attrs, " : ", t,
                         "\n return %y\n}"),
            0, {}, spec);
    }
  }
}

TEST(CompileDiffTest, ModAndFloorDivWithBroadcasting) {
  RandomSpec spec;
  spec.low = -5;
  spec.high = 5;
  for (const char* dtype : {"f32", "f64", "f16", "bf16", "i32", "i64"}) {
    for (const char* op : {"mod", "floordiv"}) {
      const bool is_int = dtype[0] == 'i';
      Check(absl::StrCat("graph @g(%x: ", dtype, "[4,1,19], %y: ", dtype, "[3,1]) {\n %z = ", op,
                         "(%x, %y) : ", dtype, "[4,3,19]\n return %z\n}"),
            is_int ? 0 : Tolerance(dtype), {}, spec);
    }
  }
  // Zero divisors, INT_MIN floordiv -1, infinities and NaN (unfolded: no
  // optional pass, so the constants reach the kernels).
  CompileOptions unfolded;
  unfolded.opt_level = 0;
  Check(R"(graph @g(%x: i32[6]) {
    %c = constant() {value=dense<i32[6]>[0, -1, 3, -3, 0, -1]} : i32[6]
    %m = constant() {value=dense<i32[6]>[-2147483648, -2147483648, 7, 7, -7, 5]} : i32[6]
    %a = floordiv(%m, %c) : i32[6]
    %b = mod(%m, %c) : i32[6]
    %d = floordiv(%x, %c) : i32[6]
    %e = mod(%x, %c) : i32[6]
    return %a, %b, %d, %e
  })",
        0, unfolded);
  Check(R"(graph @g(%x: f32[8]) {
    %c = constant() {value=dense<f32[8]>[0.0, -0.0, inf, -inf, nan, 2.0, -2.0, 0.5]} : f32[8]
    %n = constant() {value=dense<f32[8]>[1.0, -1.0, -1.0, 1.0, 3.0, inf, -0.0, 0.0]} : f32[8]
    %a = floordiv(%n, %c) : f32[8]
    %b = mod(%n, %c) : f32[8]
    %d = floordiv(%x, %c) : f32[8]
    %e = mod(%x, %c) : f32[8]
    return %a, %b, %d, %e
  })",
        0, unfolded);
}

TEST(CompileDiffTest, ComparisonsLogicAndWhere) {
  for (const char* dtype : {"f32", "i32", "f16"}) {
    for (const char* op : {"eq", "ne", "lt", "le", "gt", "ge"}) {
      Check(absl::StrCat("graph @g(%x: ", dtype, "[6,7], %y: ", dtype, "[7]) {\n %c = ", op,
                         "(%x, %y) : bool[6,7]\n return %c\n}"),
            0);
    }
  }
  Check(R"(graph @g(%a: bool[5,8], %b: bool[8], %x: f32[5,8], %y: f32[]) {
    %c = and(%a, %b) : bool[5,8]
    %d = or(%c, %a) : bool[5,8]
    %n = not(%d) : bool[5,8]
    %w = where(%n, %x, %y) : f32[5,8]
    return %w, %n
  })",
        0);
}

TEST(CompileDiffTest, CastsBetweenEveryPair) {
  const char* const types[] = {"f16", "bf16", "f32", "f64", "i32", "i64", "bool"};
  for (const char* from : types) {
    for (const char* to : types) {
      if (std::string(from) == to) continue;
      RandomSpec spec;
      spec.low = -40;
      spec.high = 40;
      Check(absl::StrCat("graph @g(%x: ", from, "[3,11]) {\n %y = cast(%x) {dtype=", to, "} : ",
                         to, "[3,11]\n return %y\n}"),
            0, {}, spec);
    }
  }
}

TEST(CompileDiffTest, Reductions) {
  for (const char* dtype : {"f32", "f64", "f16", "i32", "i64"}) {
    for (const char* op : {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min"}) {
      if (dtype[0] == 'i' && std::string(op) == "reduce_mean") continue;
      for (const char* axes : {"[1]", "[0]", "[0,2]", "[0,1,2]"}) {
        for (bool keep : {false, true}) {
          const std::string graph = absl::StrCat(
              "graph @g(%x: ", dtype, "[4,33,5]) {\n %y = ", op, "(%x) {axes=", axes,
              ", keepdim=", keep ? "true" : "false", "} : ", dtype, "%SHAPE%\n return %y\n}");
          std::vector<int64_t> dims = {4, 33, 5};
          std::string shape = "[";
          bool first = true;
          for (int i = 0; i < 3; ++i) {
            const bool reduced = std::string(axes).find(std::to_string(i)) != std::string::npos;
            if (reduced && !keep) continue;
            absl::StrAppend(&shape, first ? "" : ",", reduced ? 1 : dims[i]);
            first = false;
          }
          shape += "]";
          std::string text = graph;
          text.replace(text.find("%SHAPE%"), 7, shape);
          Check(text, dtype[0] == 'i' ? 0 : Tolerance(dtype));
        }
      }
    }
  }
}

TEST(CompileDiffTest, ArgmaxAndLongReduction) {
  Check(R"(graph @g(%x: f32[7,301]) {
    %a = argmax(%x) {axis=1, keepdim=false} : i64[7]
    %b = argmax(%x) {axis=0, keepdim=true} : i64[1,301]
    return %a, %b
  })",
        0);
  Check(R"(graph @g(%x: f32[100000]) {
    %s = reduce_sum(%x) {axes=[0], keepdim=false} : f32[]
    %m = reduce_mean(%x) {axes=[0], keepdim=false} : f32[]
    return %s, %m
  })",
        1e-5);
}

TEST(CompileDiffTest, EmptyAndUnitDims) {
  Check(R"(graph @g(%x: f32[0,5], %y: f32[5]) {
    %a = add(%x, %y) : f32[0,5]
    %s = reduce_sum(%x) {axes=[0], keepdim=false} : f32[5]
    %m = reduce_mean(%x) {axes=[0], keepdim=false} : f32[5]
    return %a, %s, %m
  })",
        1e-5);
  Check(R"(graph @g(%x: f32[1,1,7], %y: f32[1]) {
    %a = mul(%x, %y) : f32[1,1,7]
    %s = reduce_max(%a) {axes=[2], keepdim=true} : f32[1,1,1]
    %d = sub(%a, %s) : f32[1,1,7]
    return %d
  })",
        1e-5);
}

TEST(CompileDiffTest, LayoutOps) {
  Check(R"(graph @g(%x: f32[6,4], %y: f32[4,6]) {
    %t = transpose(%x) {perm=[1,0]} : f32[4,6]
    %a = add(%t, %y) : f32[4,6]
    %r = reshape(%a) {shape=[2,12]} : f32[2,12]
    %e = exp(%r) : f32[2,12]
    %u = unsqueeze(%e) {axes=[0]} : f32[1,2,12]
    %s = squeeze(%u) {axes=[0]} : f32[2,12]
    %l = slice(%s) {limit=[2,11], start=[0,1], stride=[1,3]} : f32[2,4]
    %b = broadcast_to(%l) {shape=[3,2,4]} : f32[3,2,4]
    %c = concat(%b, %b) {axis=2} : f32[3,2,8]
    return %c, %s
  })",
        1e-5);
  Check(R"(graph @g(%x: f32[3,4]) {
    %t = transpose(%x) {perm=[1,0]} : f32[4,3]
    %r = reshape(%t) {shape=[12]} : f32[12]
    %n = neg(%r) : f32[12]
    return %n
  })",
        0);
}

TEST(CompileDiffTest, CumsumEveryAxisAndFlag) {
  for (const char* dtype : {"f32", "f64", "f16", "bf16", "i32", "i64"}) {
    const std::string t = absl::StrCat(dtype, "[3,17,5]");
    for (int axis : {0, 1, -1}) {
      for (const char* flags : {"exclusive=false, reverse=false", "exclusive=true, reverse=false",
                                "exclusive=false, reverse=true", "exclusive=true, reverse=true"}) {
        Check(absl::StrCat("graph @g(%x: ", t, ") {\n %y = cumsum(%x) {axis=", axis, ", ", flags,
                           "} : ", t, "\n return %y\n}"),
              dtype[0] == 'i' ? 0 : Tolerance(dtype));
      }
    }
  }
  // A fused prologue, an epilogue reading the sums, a long row, and rows on threads.
  Check(R"(graph @g(%x: f32[4,1000], %y: f32[1000]) {
    %e = exp(%x) : f32[4,1000]
    %m = mul(%e, %y) : f32[4,1000]
    %c = cumsum(%m) {axis=1, exclusive=false, reverse=true} : f32[4,1000]
    %d = div(%c, %e) : f32[4,1000]
    return %d
  })",
        1e-5);
  CompileOptions threads;
  threads.threads = 2;
  Check(R"(graph @g(%x: f64[300,70]) {
    %c = cumsum(%x) {axis=-1, exclusive=true, reverse=false} : f64[300,70]
    return %c
  })",
        1e-12, threads);
}

TEST(CompileDiffTest, PadEveryDTypeAndFused) {
  for (const char* dtype : {"f32", "f64", "f16", "bf16", "i32", "i64", "bool"}) {
    Check(absl::StrCat("graph @g(%x: ", dtype, "[3,1,4]) {\n %y = pad(%x) {pads=[1,0,2,0,3,1], ",
                       "value=-2.5} : ", dtype, "[4,4,7]\n return %y\n}"),
          0);
  }
  Check(R"(graph @g(%x: f32[5,7], %b: f32[7]) {
    %e = exp(%x) : f32[5,7]
    %p = pad(%e) {pads=[2,1,1,3], value=0.5} : f32[8,11]
    %s = reduce_sum(%p) {axes=[1], keepdim=true} : f32[8,1]
    %t = transpose(%p) {perm=[1,0]} : f32[11,8]
    %q = pad(%b) {pads=[0,4], value=nan} : f32[11]
    %u = pad(%q) {pads=[2,2], value=1.0} : f32[15]
    return %s, %t, %u
  })",
        1e-5);
  Check(R"(graph @g(%x: f32[0,3], %y: f32[1,3]) {
    %a = pad(%x) {pads=[2,0,0,1], value=3.0} : f32[2,4]
    %b = pad(%y) {pads=[1,0,1,0], value=-1.0} : f32[3,3]
    %c = add(%a, %a) : f32[2,4]
    return %c, %b
  })",
        0);
}

TEST(CompileDiffTest, Matmul) {
  for (const char* dtype : {"f32", "f64", "i32", "f16"}) {
    Check(absl::StrCat("graph @g(%a: ", dtype, "[3,1,9,17], %b: ", dtype, "[4,17,5]) {\n",
                       " %c = matmul(%a, %b) : ", dtype, "[3,4,9,5]\n return %c\n}"),
          dtype[0] == 'i' ? 0 : Tolerance(dtype));
  }
  Check(R"(graph @g(%a: f32[9,17], %b: f32[5,17]) {
    %t = transpose(%b) {perm=[1,0]} : f32[17,5]
    %e = exp(%a) : f32[9,17]
    %c = matmul(%e, %t) : f32[9,5]
    %r = relu(%c) : f32[9,5]
    return %r
  })",
        1e-5);
}

TEST(CompileDiffTest, CompositesAndFusedEpilogues) {
  Check(R"(graph @g(%x: f32[16,67], %g: f32[67], %b: f32[67]) {
    %s = softmax(%x) {axis=1} : f32[16,67]
    %l = log_softmax(%x) {axis=-1} : f32[16,67]
    %n = layer_norm(%x, %g, %b) {axis=1, eps=1e-5} : f32[16,67]
    %r = rms_norm(%x, %g) {axis=1, eps=1e-5} : f32[16,67]
    return %s, %l, %n, %r
  })",
        5e-5);  // the decomposition rounds intermediates to f32; the reference does not
}

TEST(CompileDiffTest, NumericsOptions) {
  const std::string text = R"(graph @g(%x: f32[64,131]) {
    %e = exp(%x) : f32[64,131]
    %t = tanh(%e) : f32[64,131]
    %s = reduce_sum(%t) {axes=[1], keepdim=true} : f32[64,1]
    %d = div(%t, %s) : f32[64,131]
    return %d
  })";
  for (int width : {1, 4, 8, 16}) {
    CompileOptions options;
    options.vector_width = width;
    Check(text, 1e-5, options);
  }
  CompileOptions fast;
  fast.fast_math = true;
  Check(text, 1e-4, fast);
  CompileOptions threads;
  threads.threads = 2;
  Check(R"(graph @g(%x: f32[256,300], %y: f32[300,64]) {
    %e = exp(%x) : f32[256,300]
    %s = reduce_sum(%e) {axes=[1], keepdim=true} : f32[256,1]
    %d = div(%e, %s) : f32[256,300]
    %m = matmul(%d, %y) : f32[256,64]
    return %m, %d
  })",
        1e-5, threads);
  CompileOptions low;
  low.low_precision = true;
  Check(R"(graph @g(%x: f16[16,40], %y: bf16[40]) {
    %e = exp(%x) : f16[16,40]
    %m = mul(%e, %x) : f16[16,40]
    %c = cast(%y) {dtype=f16} : f16[40]
    %a = add(%m, %c) : f16[16,40]
    return %a
  })",
        2e-3, low);
}

TEST(CompileDiffTest, Unfused) {
  CompileOptions options;
  options.opt_level = 0;
  Check(R"(graph @g(%x: f32[8,128]) {
    %s = softmax(%x) {axis=1} : f32[8,128]
    return %s
  })",
        1e-5, options);
}

}  // namespace
}  // namespace rk::compiler
