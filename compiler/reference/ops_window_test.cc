// Hand-computed values for conv2d, max_pool2d and avg_pool2d (part of
// //compiler/reference:ops_test): strided, padded (symmetric and not),
// dilated, grouped and depthwise convolutions; pools whose windows reach
// padding.
#include <cmath>
#include <string>
#include <vector>

#include "compiler/ir/half.h"
#include "compiler/reference/interpreter.h"
#include "compiler/reference/interpreter_test_util.h"
#include "gtest/gtest.h"

namespace rk::compiler::reference_test {
namespace {

std::string Conv(const std::string& x, const std::string& w, const std::string& attrs,
                 const std::string& out) {
  return "graph @g(%x: " + x + ", %w: " + w + ") {\n  %y = conv2d(%x, %w) {" + attrs + "} : " +
         out + "\n  return %y\n}\n";
}

std::string Pool(const std::string& op, const std::string& x, const std::string& attrs,
                 const std::string& out) {
  return "graph @g(%x: " + x + ") {\n  %y = " + op + "(%x) {" + attrs + "} : " + out +
         "\n  return %y\n}\n";
}

std::vector<double> Iota(int n, double first = 1) {
  std::vector<double> v(n);
  for (int i = 0; i < n; ++i) v[i] = first + i;
  return v;
}

constexpr char kPlain[] = "dilations=[1,1], groups=1, pads=[0,0,0,0], strides=[1,1]";

TEST(Conv2dTest, Plain) {
  // x = 1..9 as 3x3, w = [[1,2],[3,4]]: out(0,0) = 1*1 + 2*2 + 4*3 + 5*4.
  HostTensor y = Eval1(Conv("f64[1,1,3,3]", "f64[1,1,2,2]", kPlain, "f64[1,1,2,2]"),
                       {T(DType::kF64, {1, 1, 3, 3}, Iota(9)), T(DType::kF64, {1, 1, 2, 2}, Iota(4))});
  ExpectValues(D(y), {37, 47, 67, 77});
}

TEST(Conv2dTest, StridedAndPadded) {
  // A 3x3 box sum of 1..9 padded by 1 on every side, stride 2: each output
  // sums the real 2x2 corner block its window covers.
  HostTensor y = Eval1(
      Conv("f32[1,1,3,3]", "f32[1,1,3,3]",
           "dilations=[1,1], groups=1, pads=[1,1,1,1], strides=[2,2]", "f32[1,1,2,2]"),
      {T(DType::kF32, {1, 1, 3, 3}, Iota(9)), T(DType::kF32, {1, 1, 3, 3}, std::vector<double>(9, 1))});
  ExpectValues(D(y), {12, 16, 24, 28});
}

TEST(Conv2dTest, AsymmetricPadsAndBatch) {
  // Left padding 1 only: W = 2 + 1 gives two outputs per row, the first
  // seeing padding then x[0].
  HostTensor y = Eval1(
      Conv("f32[2,1,1,2]", "f32[1,1,1,2]",
           "dilations=[1,1], groups=1, pads=[0,1,0,0], strides=[1,1]", "f32[2,1,1,2]"),
      {T(DType::kF32, {2, 1, 1, 2}, {1, 2, 3, 4}), T(DType::kF32, {1, 1, 1, 2}, {10, 1})});
  ExpectValues(D(y), {1, 12, 3, 34});
}

TEST(Conv2dTest, Dilated) {
  // x = 0..15 as 4x4, 2x2 ones dilated by 2: taps two apart.
  HostTensor y = Eval1(
      Conv("f32[1,1,4,4]", "f32[1,1,2,2]",
           "dilations=[2,2], groups=1, pads=[0,0,0,0], strides=[1,1]", "f32[1,1,2,2]"),
      {T(DType::kF32, {1, 1, 4, 4}, Iota(16, 0)), T(DType::kF32, {1, 1, 2, 2}, {1, 1, 1, 1})});
  ExpectValues(D(y), {0 + 2 + 8 + 10, 1 + 3 + 9 + 11, 4 + 6 + 12 + 14, 5 + 7 + 13 + 15});
}

TEST(Conv2dTest, GroupedAndDepthwise) {
  // Two groups of two channels: output 0 reads channels 0-1, output 1
  // channels 2-3.
  HostTensor g = Eval1(
      Conv("f32[1,4,1,1]", "f32[2,2,1,1]",
           "dilations=[1,1], groups=2, pads=[0,0,0,0], strides=[1,1]", "f32[1,2,1,1]"),
      {T(DType::kF32, {1, 4, 1, 1}, {1, 2, 3, 4}), T(DType::kF32, {2, 2, 1, 1}, {1, 10, 100, 1000})});
  ExpectValues(D(g), {1 + 20, 300 + 4000});
  // Depthwise (groups == C), two outputs per channel: outputs 0-1 read
  // channel 0, outputs 2-3 channel 1.
  HostTensor d = Eval1(
      Conv("f32[1,2,2,2]", "f32[4,1,2,2]",
           "dilations=[1,1], groups=2, pads=[0,0,0,0], strides=[1,1]", "f32[1,4,1,1]"),
      {T(DType::kF32, {1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}),
       T(DType::kF32, {4, 1, 2, 2}, {1, 1, 1, 1, 1, -1, 0, 0, 0, 0, 0, 1, 2, 0, 0, 0})});
  ExpectValues(D(d), {10, -1, 8, 10});
}

TEST(Conv2dTest, SumsInDoubleAndRoundsOnce) {
  // 1 + 2^-11 + 2^-11 = 1 + 2^-10 exactly; summed in f16 it would stay 1.
  const double tiny = std::ldexp(1.0, -11);
  HostTensor y = Eval1(Conv("f16[1,1,1,3]", "f16[1,1,1,3]", kPlain, "f16[1,1,1,1]"),
                       {T(DType::kF16, {1, 1, 1, 3}, {1, tiny, tiny}),
                        T(DType::kF16, {1, 1, 1, 3}, {1, 1, 1})});
  ExpectValues(D(y), {1 + std::ldexp(1.0, -10)});
}

constexpr char kPoolCorner[] = "kernel=[2,2], pads=[1,1,0,0], strides=[2,2]";

TEST(MaxPool2dTest, PaddingNeverWins) {
  // All values negative: a padded zero would win if padding counted.
  std::vector<double> x = Iota(9, -9);  // -9..-1
  for (double& v : x) v = -10 - v;      // -1..-9
  HostTensor y = Eval1(Pool("max_pool2d", "f32[1,1,3,3]", std::string(kPoolCorner) + ", dilations=[1,1]",
                            "f32[1,1,2,2]"),
                       {T(DType::kF32, {1, 1, 3, 3}, x)});
  ExpectValues(D(y), {-1, -2, -4, -5});
}

TEST(MaxPool2dTest, DilatedNanAndAllPaddingWindows) {
  HostTensor y = Eval1(Pool("max_pool2d", "f32[1,1,1,5]",
                            "dilations=[1,2], kernel=[1,2], pads=[0,0,0,0], strides=[1,1]",
                            "f32[1,1,1,3]"),
                       {T(DType::kF32, {1, 1, 1, 5}, {5, 1, 4, kNaN, 3})});
  ExpectValues(D(y), {5, kNaN, 4});
  // Taps at -2 and 1 of an input of width 1: nothing real to take.
  HostTensor e = Eval1(Pool("max_pool2d", "f32[1,1,1,1]",
                            "dilations=[1,3], kernel=[1,2], pads=[0,2,0,1], strides=[1,1]",
                            "f32[1,1,1,1]"),
                       {T(DType::kF32, {1, 1, 1, 1}, {7})});
  ExpectValues(D(e), {-kInf});
}

TEST(AvgPool2dTest, CountIncludePad) {
  const HostTensor x = T(DType::kF32, {1, 1, 3, 3}, Iota(9));
  HostTensor real = Eval1(Pool("avg_pool2d", "f32[1,1,3,3]",
                               std::string(kPoolCorner) + ", count_include_pad=false", "f32[1,1,2,2]"),
                          {x});
  ExpectValues(D(real), {1, 2.5, 5.5, 7});
  HostTensor all = Eval1(Pool("avg_pool2d", "f32[1,1,3,3]",
                              std::string(kPoolCorner) + ", count_include_pad=true", "f32[1,1,2,2]"),
                         {x});
  ExpectValues(D(all), {0.25, 1.25, 2.75, 7});
}

TEST(AvgPool2dTest, StridedWindowsAndEmptyWindow) {
  // 2x2 windows, stride 1, over 1..9 (channels and batches are independent).
  HostTensor y = Eval1(Pool("avg_pool2d", "f64[2,1,3,3]",
                            "count_include_pad=false, kernel=[2,2], pads=[0,0,0,0], strides=[1,1]",
                            "f64[2,1,2,2]"),
                       {T(DType::kF64, {2, 1, 3, 3}, Iota(18))});
  ExpectValues(D(y), {3, 4, 6, 7, 12, 13, 15, 16});
  // A window of padding only: 0 / 0.
  HostTensor e = Eval1(Pool("avg_pool2d", "f32[1,1,1,1]",
                            "count_include_pad=false, kernel=[1,1], pads=[0,1,0,0], strides=[1,1]",
                            "f32[1,1,1,2]"),
                       {T(DType::kF32, {1, 1, 1, 1}, {7})});
  ExpectValues(D(e), {kNaN, 7});
}

}  // namespace
}  // namespace rk::compiler::reference_test
