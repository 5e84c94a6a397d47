// Hand-computed values for every op of compiler/ir/ops.def but those of
// compiler/reference/ops_rounding_test.cc and
// compiler/reference/ops_scan_pad_test.cc.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "compiler/ir/half.h"
#include "compiler/reference/interpreter.h"
#include "compiler/reference/interpreter_test_util.h"
#include "gtest/gtest.h"

namespace rk::compiler::reference_test {
namespace {

struct UnaryCase {
  const char* op;
  std::vector<double> in;
  std::vector<double> want;
};

TEST(InterpreterTest, UnaryOpsOnF64) {
  const double e = std::exp(1.0);
  const std::vector<UnaryCase> cases = {
      {"neg", {1, -2, 0}, {-1, 2, 0}},
      {"abs", {-3, 2, -0.0}, {3, 2, 0}},
      {"exp", {0, 1, -kInf}, {1, e, 0}},
      {"log", {1, e, 0}, {0, 1, -kInf}},
      {"sqrt", {4, 0, 2.25}, {2, 0, 1.5}},
      {"rsqrt", {4, 0.25, 0}, {0.5, 2, kInf}},
      {"reciprocal", {2, -0.5, 0}, {0.5, -2, kInf}},
      {"tanh", {0, kInf, -kInf}, {0, 1, -1}},
      {"sigmoid", {0, kInf, -1000}, {0.5, 1, 0}},
      {"relu", {-1, 0, 2}, {0, 0, 2}},
      {"erf", {0, kInf, -kInf}, {0, 1, -1}},
      {"sin", {0, M_PI / 2, -M_PI / 2}, {0, 1, -1}},
      {"cos", {0, M_PI, 0}, {1, -1, 1}},
      {"gelu", {0, 1, -1}, {0, 0.8413447460685429, -0.15865525393145707}},
  };
  for (const UnaryCase& c : cases) {
    SCOPED_TRACE(c.op);
    HostTensor y = Eval1(UnaryGraph(c.op, "f64[3]"), {T(DType::kF64, {3}, c.in)});
    ExpectValues(D(y), c.want, 1e-15);
  }
}

TEST(InterpreterTest, UnaryNanAndSignedZero) {
  HostTensor r = Eval1(UnaryGraph("relu", "f32[2]"), {T(DType::kF32, {2}, {kNaN, -0.0})});
  EXPECT_TRUE(std::isnan(r.GetDouble(0)));
  EXPECT_FALSE(std::signbit(r.GetDouble(1)));
  HostTensor s = Eval1(UnaryGraph("sqrt", "f32[1]"), {T(DType::kF32, {1}, {-1})});
  EXPECT_TRUE(std::isnan(s.GetDouble(0)));
  HostTensor n = Eval1(UnaryGraph("neg", "f32[1]"), {T(DType::kF32, {1}, {0.0})});
  EXPECT_TRUE(std::signbit(n.GetDouble(0)));
}

struct BinaryCase {
  const char* op;
  std::vector<double> want;
};

TEST(InterpreterTest, BinaryOpsOnF64) {
  const HostTensor a = T(DType::kF64, {4}, {6, -3, 2, 0});
  const HostTensor b = T(DType::kF64, {4}, {4, 2, -0.5, 0});
  const std::vector<BinaryCase> cases = {
      {"add", {10, -1, 1.5, 0}},     {"sub", {2, -5, 2.5, 0}},
      {"mul", {24, -6, -1, 0}},      {"div", {1.5, -1.5, -4, kNaN}},
      {"pow", {1296, 9, 1 / std::sqrt(2.0), 1}},
      {"maximum", {6, 2, 2, 0}},     {"minimum", {4, -3, -0.5, 0}},
  };
  for (const BinaryCase& c : cases) {
    SCOPED_TRACE(c.op);
    HostTensor y = Eval1(BinaryGraph(c.op, "f64[4]", "f64[4]", "f64[4]"), {a, b});
    ExpectValues(D(y), c.want, 1e-15);
  }
}

TEST(InterpreterTest, MaximumMinimumPropagateNanAndOrderZeros) {
  const HostTensor a = T(DType::kF32, {3}, {kNaN, 1, -0.0});
  const HostTensor b = T(DType::kF32, {3}, {1, kNaN, 0.0});
  HostTensor mx = Eval1(BinaryGraph("maximum", "f32[3]", "f32[3]", "f32[3]"), {a, b});
  HostTensor mn = Eval1(BinaryGraph("minimum", "f32[3]", "f32[3]", "f32[3]"), {a, b});
  ExpectValues(D(mx), {kNaN, kNaN, 0});
  ExpectValues(D(mn), {kNaN, kNaN, 0});
  EXPECT_FALSE(std::signbit(mx.GetDouble(2)));
  EXPECT_TRUE(std::signbit(mn.GetDouble(2)));
}

TEST(InterpreterTest, NanAndInfPropagate) {
  const HostTensor a = T(DType::kF32, {4}, {kNaN, kInf, kInf, 1});
  const HostTensor b = T(DType::kF32, {4}, {1, -kInf, 1, kInf});
  HostTensor add = Eval1(BinaryGraph("add", "f32[4]", "f32[4]", "f32[4]"), {a, b});
  ExpectValues(D(add), {kNaN, kNaN, kInf, kInf});
  HostTensor mul = Eval1(BinaryGraph("mul", "f32[4]", "f32[4]", "f32[4]"),
                         {a, T(DType::kF32, {4}, {1, 0, -1, 0})});
  ExpectValues(D(mul), {kNaN, kNaN, -kInf, 0});
}

TEST(InterpreterTest, IntegerArithmeticWrapsAndTruncates) {
  const int64_t kMin32 = std::numeric_limits<int32_t>::min();
  const int64_t kMax32 = std::numeric_limits<int32_t>::max();
  const HostTensor a = TI(DType::kI32, {5}, {kMax32, 7, -7, 5, kMin32});
  const HostTensor b = TI(DType::kI32, {5}, {1, -2, 2, 0, -1});
  const std::string types[] = {"i32[5]", "i32[5]", "i32[5]"};
  auto run = [&](const char* op) {
    return I(Eval1(BinaryGraph(op, types[0], types[1], types[2]), {a, b}));
  };
  EXPECT_EQ(run("add"), (std::vector<int64_t>{kMin32, 5, -5, 5, kMax32}));
  EXPECT_EQ(run("sub"), (std::vector<int64_t>{kMax32 - 1, 9, -9, 5, kMin32 + 1}));
  EXPECT_EQ(run("mul"), (std::vector<int64_t>{kMax32, -14, -14, 0, kMin32}));
  EXPECT_EQ(run("div"), (std::vector<int64_t>{kMax32, -3, -3, 0, kMin32}));
  EXPECT_EQ(run("maximum"), (std::vector<int64_t>{kMax32, 7, 2, 5, -1}));
  EXPECT_EQ(run("minimum"), (std::vector<int64_t>{1, -2, -7, 0, kMin32}));
  const HostTensor big = TI(DType::kI32, {2}, {65536, kMin32});
  EXPECT_EQ(I(Eval1(BinaryGraph("mul", "i32[2]", "i32[2]", "i32[2]"), {big, big})),
            (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(I(Eval1(UnaryGraph("neg", "i32[2]"), {big})),
            (std::vector<int64_t>{-65536, kMin32}));
  EXPECT_EQ(I(Eval1(UnaryGraph("abs", "i32[2]"), {TI(DType::kI32, {2}, {-5, kMin32})})),
            (std::vector<int64_t>{5, kMin32}));
  const int64_t kMax64 = std::numeric_limits<int64_t>::max();
  const int64_t kMin64 = std::numeric_limits<int64_t>::min();
  const HostTensor c = TI(DType::kI64, {2}, {kMax64, kMin64});
  const HostTensor d = TI(DType::kI64, {2}, {1, -1});
  EXPECT_EQ(I(Eval1(BinaryGraph("add", "i64[2]", "i64[2]", "i64[2]"), {c, d})),
            (std::vector<int64_t>{kMin64, kMax64}));
  EXPECT_EQ(I(Eval1(BinaryGraph("div", "i64[2]", "i64[2]", "i64[2]"), {c, d})),
            (std::vector<int64_t>{kMax64, kMin64}));
}

TEST(InterpreterTest, BroadcastingEdgeCases) {
  // [2,1] + [3] -> [2,3]
  HostTensor y = Eval1(BinaryGraph("add", "f32[2,1]", "f32[3]", "f32[2,3]"),
                       {T(DType::kF32, {2, 1}, {10, 20}), T(DType::kF32, {3}, {1, 2, 3})});
  ExpectValues(D(y), {11, 12, 13, 21, 22, 23});
  // scalar - [2,2]
  y = Eval1(BinaryGraph("sub", "f32[]", "f32[2,2]", "f32[2,2]"),
            {T(DType::kF32, {}, {1}), T(DType::kF32, {2, 2}, {1, 2, 3, 4})});
  ExpectValues(D(y), {0, -1, -2, -3});
  // [1,3,1] * [2,1,2] -> [2,3,2]
  y = Eval1(BinaryGraph("mul", "f32[1,3,1]", "f32[2,1,2]", "f32[2,3,2]"),
            {T(DType::kF32, {1, 3, 1}, {1, 2, 3}), T(DType::kF32, {2, 1, 2}, {1, 10, 100, 1000})});
  ExpectValues(D(y), {1, 10, 2, 20, 3, 30, 100, 1000, 200, 2000, 300, 3000});
  // A zero-sized dim broadcasts against a size-1 dim.
  y = Eval1(BinaryGraph("add", "f32[0,3]", "f32[1,3]", "f32[0,3]"),
            {T(DType::kF32, {0, 3}, {}), T(DType::kF32, {1, 3}, {1, 2, 3})});
  EXPECT_EQ(y.type(), TensorType(DType::kF32, {0, 3}));
}

TEST(InterpreterTest, ComparisonsWithNan) {
  const HostTensor a = T(DType::kF32, {4}, {1, kNaN, 2, 1});
  const HostTensor b = T(DType::kF32, {4}, {1, 1, kNaN, 2});
  const std::vector<std::pair<const char*, std::vector<int64_t>>> cases = {
      {"eq", {1, 0, 0, 0}}, {"ne", {0, 1, 1, 1}}, {"lt", {0, 0, 0, 1}},
      {"le", {1, 0, 0, 1}}, {"gt", {0, 0, 0, 0}}, {"ge", {1, 0, 0, 0}},
  };
  for (const auto& [op, want] : cases) {
    SCOPED_TRACE(op);
    HostTensor y = Eval1(BinaryGraph(op, "f32[4]", "f32[4]", "bool[4]"), {a, b});
    EXPECT_EQ(y.dtype(), DType::kBool);
    EXPECT_EQ(I(y), want);
  }
  HostTensor y = Eval1(BinaryGraph("lt", "i32[2,1]", "i32[2]", "bool[2,2]"),
                       {TI(DType::kI32, {2, 1}, {1, 5}), TI(DType::kI32, {2}, {3, -4})});
  EXPECT_EQ(I(y), (std::vector<int64_t>{1, 0, 0, 0}));
}

TEST(InterpreterTest, LogicAndWhere) {
  const HostTensor p = TI(DType::kBool, {2, 1}, {0, 1});
  const HostTensor q = TI(DType::kBool, {2}, {0, 1});
  EXPECT_EQ(I(Eval1(BinaryGraph("and", "bool[2,1]", "bool[2]", "bool[2,2]"), {p, q})),
            (std::vector<int64_t>{0, 0, 0, 1}));
  EXPECT_EQ(I(Eval1(BinaryGraph("or", "bool[2,1]", "bool[2]", "bool[2,2]"), {p, q})),
            (std::vector<int64_t>{0, 1, 1, 1}));
  EXPECT_EQ(I(Eval1(UnaryGraph("not", "bool[2]"), {q})), (std::vector<int64_t>{1, 0}));
  const std::string where = R"(graph @g(%c: bool[2,1], %a: f16[3], %b: f16[]) {
  %y = where(%c, %a, %b) : f16[2,3]
  return %y
})";
  HostTensor y = Eval1(where, {p, T(DType::kF16, {3}, {1, 2, 3}), T(DType::kF16, {}, {-1})});
  ExpectValues(D(y), {-1, -1, -1, 1, 2, 3});
  const std::string where_int = R"(graph @g(%c: bool[3], %a: i64[3], %b: i64[3]) {
  %y = where(%c, %a, %b) : i64[3]
  return %y
})";
  y = Eval1(where_int, {TI(DType::kBool, {3}, {1, 0, 1}), TI(DType::kI64, {3}, {1, 2, 3}),
                        TI(DType::kI64, {3}, {-1, -2, -3})});
  EXPECT_EQ(I(y), (std::vector<int64_t>{1, -2, 3}));
}

std::string CastGraph(const std::string& from, const std::string& to) {
  return "graph @g(%x: " + from + ") {\n  %y = cast(%x) {dtype=" + to.substr(0, to.find('[')) +
         "} : " + to + "\n  return %y\n}\n";
}

TEST(InterpreterTest, Casts) {
  HostTensor f = T(DType::kF32, {6}, {1.9, -1.9, kNaN, 3e9, kInf, -0.5});
  EXPECT_EQ(I(Eval1(CastGraph("f32[6]", "i32[6]"), {f})),
            (std::vector<int64_t>{1, -1, 0, 3000000000LL - 4294967296LL, 0, 0}));
  EXPECT_EQ(I(Eval1(CastGraph("f32[6]", "i64[6]"), {f})),
            (std::vector<int64_t>{1, -1, 0, 3000000000LL, 0, 0}));
  EXPECT_EQ(I(Eval1(CastGraph("f32[6]", "bool[6]"), {f})),
            (std::vector<int64_t>{1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(I(Eval1(CastGraph("f32[2]", "bool[2]"), {T(DType::kF32, {2}, {0.0, -0.0})})),
            (std::vector<int64_t>{0, 0}));
  // 2049 is not an f16: ties to even give 2048; 65520 overflows to Inf.
  ExpectValues(D(Eval1(CastGraph("i32[2]", "f16[2]"), {TI(DType::kI32, {2}, {2049, 65520})})),
               {2048, kInf});
  ExpectValues(D(Eval1(CastGraph("f64[2]", "bf16[2]"), {T(DType::kF64, {2}, {1.00390625, 3.0})})),
               {1.0, 3.0});
  ExpectValues(D(Eval1(CastGraph("bool[2]", "f32[2]"), {TI(DType::kBool, {2}, {1, 0})})), {1, 0});
  EXPECT_EQ(I(Eval1(CastGraph("i64[1]", "i32[1]"), {TI(DType::kI64, {1}, {(1LL << 32) + 7})})),
            (std::vector<int64_t>{7}));
}

TEST(InterpreterTest, Sources) {
  const std::string text = R"(graph @g() {
  %f = full() {dtype=f16, shape=[2,2], value=0.1} : f16[2,2]
  %i = iota() {axis=1, dtype=i32, shape=[2,3]} : i32[2,3]
  %j = iota() {axis=0, dtype=f32, shape=[2,3]} : f32[2,3]
  %c = constant() {value=dense<f32[2]>[1.5, -2.0]} : f32[2]
  %n = full() {dtype=i32, shape=[2], value=-2.7} : i32[2]
  return %f, %i, %j, %c, %n
})";
  EvalResult r = MustEval(text, {});
  ASSERT_EQ(r.outputs.size(), 5u);
  ExpectValues(D(r.outputs[0]), std::vector<double>(4, RoundToF16(0.1)));
  EXPECT_EQ(I(r.outputs[1]), (std::vector<int64_t>{0, 1, 2, 0, 1, 2}));
  ExpectValues(D(r.outputs[2]), {0, 0, 0, 1, 1, 1});
  ExpectValues(D(r.outputs[3]), {1.5, -2});
  EXPECT_EQ(I(r.outputs[4]), (std::vector<int64_t>{-2, -2}));
}

std::string ReduceGraph(const std::string& op, const std::string& attrs, const std::string& in,
                        const std::string& out) {
  return "graph @g(%x: " + in + ") {\n  %y = " + op + "(%x) {" + attrs + "} : " + out +
         "\n  return %y\n}\n";
}

HostTensor Iota24() {
  std::vector<double> v(24);
  for (int i = 0; i < 24; ++i) v[i] = i;
  return T(DType::kF32, {2, 3, 4}, v);
}

TEST(InterpreterTest, MultiAxisReductions) {
  const HostTensor x = Iota24();  // x[i,j,k] = 12i + 4j + k
  ExpectValues(D(Eval1(ReduceGraph("reduce_sum", "axes=[0,2], keepdim=false", "f32[2,3,4]",
                                   "f32[3]"), {x})),
               {60, 92, 124});
  HostTensor kept = Eval1(ReduceGraph("reduce_sum", "axes=[2,-3], keepdim=true", "f32[2,3,4]",
                                      "f32[1,3,1]"), {x});
  EXPECT_EQ(kept.shape(), Shape({1, 3, 1}));
  ExpectValues(D(kept), {60, 92, 124});
  ExpectValues(D(Eval1(ReduceGraph("reduce_mean", "axes=[1], keepdim=false", "f32[2,3,4]",
                                   "f32[2,4]"), {x})),
               {4, 5, 6, 7, 16, 17, 18, 19});
  ExpectValues(D(Eval1(ReduceGraph("reduce_max", "axes=[0,1], keepdim=false", "f32[2,3,4]",
                                   "f32[4]"), {x})),
               {20, 21, 22, 23});
  ExpectValues(D(Eval1(ReduceGraph("reduce_min", "axes=[2], keepdim=true", "f32[2,3,4]",
                                   "f32[2,3,1]"), {x})),
               {0, 4, 8, 12, 16, 20});
  ExpectValues(D(Eval1(ReduceGraph("reduce_sum", "axes=[0,1,2], keepdim=false", "f32[2,3,4]",
                                   "f32[]"), {x})),
               {276});
  // No axes: every element is its own reduction.
  ExpectValues(D(Eval1(ReduceGraph("reduce_sum", "axes=[], keepdim=false", "f32[2]", "f32[2]"),
                       {T(DType::kF32, {2}, {1, 2})})),
               {1, 2});
}

TEST(InterpreterTest, ReductionsWithNanEmptyAndIntegers) {
  const HostTensor x = T(DType::kF32, {2, 2}, {1, kNaN, 3, 4});
  ExpectValues(D(Eval1(ReduceGraph("reduce_max", "axes=[1], keepdim=false", "f32[2,2]",
                                   "f32[2]"), {x})),
               {kNaN, 4});
  ExpectValues(D(Eval1(ReduceGraph("reduce_min", "axes=[1], keepdim=false", "f32[2,2]",
                                   "f32[2]"), {x})),
               {kNaN, 3});
  const HostTensor empty = T(DType::kF32, {2, 0}, {});
  ExpectValues(D(Eval1(ReduceGraph("reduce_sum", "axes=[1], keepdim=false", "f32[2,0]",
                                   "f32[2]"), {empty})),
               {0, 0});
  ExpectValues(D(Eval1(ReduceGraph("reduce_mean", "axes=[1], keepdim=false", "f32[2,0]",
                                   "f32[2]"), {empty})),
               {kNaN, kNaN});
  EXPECT_EQ(Eval1(ReduceGraph("reduce_max", "axes=[1], keepdim=false", "f32[0,2]", "f32[0]"),
                  {T(DType::kF32, {0, 2}, {})})
                .num_elements(),
            0);
  const int64_t kMax32 = std::numeric_limits<int32_t>::max();
  const HostTensor ints = TI(DType::kI32, {3}, {kMax32, 1, 5});
  EXPECT_EQ(I(Eval1(ReduceGraph("reduce_sum", "axes=[0], keepdim=false", "i32[3]", "i32[]"),
                    {ints})),
            (std::vector<int64_t>{std::numeric_limits<int32_t>::min() + 5LL}));
  EXPECT_EQ(I(Eval1(ReduceGraph("reduce_max", "axes=[0], keepdim=false", "i32[3]", "i32[]"),
                    {ints})),
            (std::vector<int64_t>{kMax32}));
  EXPECT_EQ(I(Eval1(ReduceGraph("reduce_min", "axes=[0], keepdim=false", "i32[3]", "i32[]"),
                    {ints})),
            (std::vector<int64_t>{1}));
}

TEST(InterpreterTest, Argmax) {
  const HostTensor x = T(DType::kF32, {2, 4}, {1, 3, 3, 2, 0, 5, kNaN, kNaN});
  HostTensor a = Eval1(ReduceGraph("argmax", "axis=1, keepdim=false", "f32[2,4]", "i64[2]"), {x});
  EXPECT_EQ(a.dtype(), DType::kI64);
  EXPECT_EQ(I(a), (std::vector<int64_t>{1, 2}));
  a = Eval1(ReduceGraph("argmax", "axis=0, keepdim=true", "f32[2,4]", "i64[1,4]"), {x});
  EXPECT_EQ(I(a), (std::vector<int64_t>{0, 1, 1, 1}));
  a = Eval1(ReduceGraph("argmax", "axis=-1, keepdim=false", "i32[3]", "i64[]"),
            {TI(DType::kI32, {3}, {-4, 9, 9})});
  EXPECT_EQ(I(a), (std::vector<int64_t>{1}));
}

std::string LayoutGraph(const std::string& op, const std::string& attrs, const std::string& in,
                        const std::string& out) {
  return ReduceGraph(op, attrs, in, out);
}

TEST(InterpreterTest, LayoutOps) {
  const HostTensor x = T(DType::kF32, {2, 3}, {0, 1, 2, 3, 4, 5});
  HostTensor y = Eval1(LayoutGraph("reshape", "shape=[3,2]", "f32[2,3]", "f32[3,2]"), {x});
  EXPECT_EQ(y.shape(), Shape({3, 2}));
  ExpectValues(D(y), {0, 1, 2, 3, 4, 5});
  ExpectValues(D(Eval1(LayoutGraph("transpose", "perm=[1,0]", "f32[2,3]", "f32[3,2]"), {x})),
               {0, 3, 1, 4, 2, 5});
  // x3[i,j,k] = 12i + 4j + k; perm [2,0,1] gives y[k,i,j].
  y = Eval1(LayoutGraph("transpose", "perm=[2,0,1]", "f32[2,3,4]", "f32[4,2,3]"), {Iota24()});
  EXPECT_EQ(y.GetDouble(0), 0);
  EXPECT_EQ(y.GetDouble(1), 4);     // k=0,i=0,j=1
  EXPECT_EQ(y.GetDouble(3), 12);    // k=0,i=1,j=0
  EXPECT_EQ(y.GetDouble(6 + 5), 21);  // k=1,i=1,j=2
  ExpectValues(D(Eval1(LayoutGraph("broadcast_to", "shape=[2,2,3]", "f32[2,1]", "f32[2,2,3]"),
                       {T(DType::kF32, {2, 1}, {7, 8})})),
               {7, 7, 7, 8, 8, 8, 7, 7, 7, 8, 8, 8});
  std::vector<double> ten(10);
  for (int i = 0; i < 10; ++i) ten[i] = i;
  ExpectValues(D(Eval1(LayoutGraph("slice", "start=[1], limit=[8], stride=[3]", "f32[10]",
                                   "f32[3]"), {T(DType::kF32, {10}, ten)})),
               {1, 4, 7});
  ExpectValues(D(Eval1(LayoutGraph("slice", "start=[1,0], limit=[2,3], stride=[1,2]", "f32[2,3]",
                                   "f32[1,2]"), {x})),
               {3, 5});
  EXPECT_EQ(Eval1(LayoutGraph("slice", "start=[1,1], limit=[1,3], stride=[1,1]", "f32[2,3]",
                              "f32[0,2]"), {x})
                .num_elements(),
            0);
  y = Eval1(LayoutGraph("squeeze", "axes=[0,2]", "f32[1,3,1]", "f32[3]"),
            {T(DType::kF32, {1, 3, 1}, {1, 2, 3})});
  ExpectValues(D(y), {1, 2, 3});
  y = Eval1(LayoutGraph("unsqueeze", "axes=[0,-1]", "f32[3]", "f32[1,3,1]"),
            {T(DType::kF32, {3}, {1, 2, 3})});
  EXPECT_EQ(y.shape(), Shape({1, 3, 1}));
  ExpectValues(D(y), {1, 2, 3});
  const std::string concat = R"(graph @g(%a: i32[2,1], %b: i32[2,0], %c: i32[2,2]) {
  %y = concat(%a, %b, %c) {axis=1} : i32[2,3]
  %z = concat(%a, %a) {axis=0} : i32[4,1]
  return %y, %z
})";
  EvalResult r = MustEval(concat, {TI(DType::kI32, {2, 1}, {1, 2}), TI(DType::kI32, {2, 0}, {}),
                                   TI(DType::kI32, {2, 2}, {3, 4, 5, 6})});
  ASSERT_EQ(r.outputs.size(), 2u);
  EXPECT_EQ(I(r.outputs[0]), (std::vector<int64_t>{1, 3, 4, 2, 5, 6}));
  EXPECT_EQ(I(r.outputs[1]), (std::vector<int64_t>{1, 2, 1, 2}));
}

TEST(InterpreterTest, Matmul) {
  const HostTensor a = T(DType::kF32, {2, 3}, {1, 2, 3, 4, 5, 6});
  const HostTensor b = T(DType::kF32, {3, 2}, {7, 8, 9, 10, 11, 12});
  ExpectValues(D(Eval1(BinaryGraph("matmul", "f32[2,3]", "f32[3,2]", "f32[2,2]"), {a, b})),
               {58, 64, 139, 154});
  // Batch broadcasting: [2,1,1,2] x [3,2,1] -> [2,3,1,1].
  const HostTensor p = T(DType::kF32, {2, 1, 1, 2}, {1, 2, 3, 4});
  const HostTensor q = T(DType::kF32, {3, 2, 1}, {1, 10, 100, 1000, -1, 1});
  ExpectValues(
      D(Eval1(BinaryGraph("matmul", "f32[2,1,1,2]", "f32[3,2,1]", "f32[2,3,1,1]"), {p, q})),
      {21, 2100, 1, 43, 4300, 1});
  // K = 0 gives zeros; Inf * 0 gives NaN.
  ExpectValues(D(Eval1(BinaryGraph("matmul", "f32[2,0]", "f32[0,2]", "f32[2,2]"),
                       {T(DType::kF32, {2, 0}, {}), T(DType::kF32, {0, 2}, {})})),
               {0, 0, 0, 0});
  ExpectValues(D(Eval1(BinaryGraph("matmul", "f32[1,1]", "f32[1,1]", "f32[1,1]"),
                       {T(DType::kF32, {1, 1}, {kInf}), T(DType::kF32, {1, 1}, {0})})),
               {kNaN});
  const HostTensor big = TI(DType::kI32, {1, 2}, {65536, 1});
  const HostTensor col = TI(DType::kI32, {2, 1}, {65536, 5});
  EXPECT_EQ(I(Eval1(BinaryGraph("matmul", "i32[1,2]", "i32[2,1]", "i32[1,1]"), {big, col})),
            (std::vector<int64_t>{5}));
}

TEST(InterpreterTest, Composites) {
  const std::string softmax = R"(graph @g(%x: f64[2,3]) {
  %s = softmax(%x) {axis=1} : f64[2,3]
  %l = log_softmax(%x) {axis=-1} : f64[2,3]
  %c = softmax(%x) {axis=0} : f64[2,3]
  return %s, %l, %c
})";
  EvalResult r = MustEval(softmax, {T(DType::kF64, {2, 3}, {1, 2, 3, 1000, 1000, -kInf})});
  ASSERT_EQ(r.outputs.size(), 3u);
  ExpectValues(D(r.outputs[0]),
               {0.09003057317038046, 0.24472847105479764, 0.6652409557748219, 0.5, 0.5, 0},
               1e-15);
  ExpectValues(D(r.outputs[1]),
               {-2 - std::log(1 + std::exp(-1.0) + std::exp(-2.0)),
                -1 - std::log(1 + std::exp(-1.0) + std::exp(-2.0)),
                -std::log(1 + std::exp(-1.0) + std::exp(-2.0)), -std::log(2.0), -std::log(2.0),
                -kInf},
               1e-12);
  ExpectValues(D(r.outputs[2]), {0, 0, 1, 1, 1, 0});

  const std::string norms = R"(graph @g(%x: f64[1,4], %g: f64[4], %b: f64[4], %h: f64[2], %z: f64[2]) {
  %ln = layer_norm(%x, %g, %b) {axis=1, eps=0.0} : f64[1,4]
  %rn = rms_norm(%z, %h) {axis=0, eps=0.0} : f64[2]
  return %ln, %rn
})";
  r = MustEval(norms, {T(DType::kF64, {1, 4}, {1, 2, 3, 4}), T(DType::kF64, {4}, {1, 2, 1, 1}),
                       T(DType::kF64, {4}, {0, 0, 1, 0}), T(DType::kF64, {2}, {1, 0.5}),
                       T(DType::kF64, {2}, {3, 4})});
  ASSERT_EQ(r.outputs.size(), 2u);
  // mean 2.5, biased variance 1.25.
  ExpectValues(D(r.outputs[0]),
               {-1.3416407864998738, -0.8944271909999159, 1.4472135954999579, 1.3416407864998738},
               1e-15);
  // mean of squares 12.5.
  ExpectValues(D(r.outputs[1]), {0.848528137423857, 0.565685424949238}, 1e-15);
}

TEST(InterpreterTest, LayerNormEpsilonAndConstantRows) {
  const std::string text = R"(graph @g(%x: f32[2,2], %g: f32[2], %b: f32[2]) {
  %y = layer_norm(%x, %g, %b) {axis=-1, eps=1.0} : f32[2,2]
  return %y
})";
  HostTensor y = Eval1(text, {T(DType::kF32, {2, 2}, {5, 5, 0, 2}), T(DType::kF32, {2}, {1, 1}),
                              T(DType::kF32, {2}, {0, 0})});
  // Row 0 is constant: (x - mean) = 0. Row 1: var 1, (x-1)/sqrt(2).
  ExpectValues(D(y), {0, 0, static_cast<float>(-1 / std::sqrt(2.0)),
                      static_cast<float>(1 / std::sqrt(2.0))});
}

// Below f64 the row mean is held in f32 before it is subtracted, as the
// compiler's lowering (and any f32 program) holds it: the mean of 1 and
// 1 + 2^-23 is 1 + 2^-24, which rounds to 1 in f32. With eps = 0 the
// normalized row is then (0, sqrt(2)); in f64 it is (-1, 1).
TEST(InterpreterTest, LayerNormHoldsTheRowMeanInF32BelowF64) {
  const float above_one = 1.0f + std::ldexp(1.0f, -23);
  const std::string f32 = R"(graph @g(%x: f32[1,2], %g: f32[2], %b: f32[2]) {
  %y = layer_norm(%x, %g, %b) {axis=-1, eps=0.0} : f32[1,2]
  return %y
})";
  HostTensor y = Eval1(f32, {T(DType::kF32, {1, 2}, {1, above_one}), T(DType::kF32, {2}, {1, 1}),
                             T(DType::kF32, {2}, {0, 0})});
  ExpectValues(D(y), {0, static_cast<float>(std::sqrt(2.0))});

  const std::string f64 = R"(graph @g(%x: f64[1,2], %g: f64[2], %b: f64[2]) {
  %y = layer_norm(%x, %g, %b) {axis=-1, eps=0.0} : f64[1,2]
  return %y
})";
  y = Eval1(f64, {T(DType::kF64, {1, 2}, {1, above_one}), T(DType::kF64, {2}, {1, 1}),
                  T(DType::kF64, {2}, {0, 0})});
  ExpectValues(D(y), {-1, 1}, 1e-9);
}

}  // namespace
}  // namespace rk::compiler::reference_test
