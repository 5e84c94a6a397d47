// PTX of reductions over few long rows, which run in two passes
// (compiler/cuda/planning/split_rows.h): partials, then a fixed-order combine.
#include <string>

#include "absl/strings/match.h"
#include "compiler/cuda/codegen/ptx_compiler.h"
#include "compiler/cuda/codegen/ptx_test_util.h"
#include "gtest/gtest.h"

namespace rk::compiler::cuda {
namespace {

constexpr char kLongSum[] = R"(graph @g(%x: f32[67108864]) {
  %s = reduce_sum(%x) {axes=[0], keepdim=false} : f32[]
  return %s
})";

TEST(PtxTwoPassTest, FewLongRowsReduceInTwoPasses) {
  PtxProgram p = Ptx(kLongSum);
  ASSERT_EQ(p.launches.size(), 2u);
  const KernelLaunch& one = p.launches[0];
  const KernelLaunch& two = p.launches[1];
  EXPECT_EQ(one.entry, "rk_k0_partials");
  EXPECT_EQ(two.entry, "rk_k0_combine");
  EXPECT_EQ(one.form, KernelForm::kRowPartials);
  EXPECT_EQ(two.form, KernelForm::kRowCombine);
  // Pass 1: 1056 chunks of the one row; pass 2: a block for the row.
  EXPECT_EQ(one.grid, (std::array<uint32_t, 3>{1056, 1, 1}));
  EXPECT_EQ(two.grid, (std::array<uint32_t, 3>{1, 1, 1}));
  EXPECT_EQ(one.block[0], 256u);
  EXPECT_EQ(two.block[0], 256u);
  // One f64 partial a chunk, in the scratch buffer both passes take.
  EXPECT_EQ(one.scratch_bytes, 1056 * 8);
  EXPECT_EQ(two.scratch_bytes, one.scratch_bytes);
  EXPECT_EQ(one.buffers, two.buffers);
  EXPECT_EQ(PrintLaunches(p.launches),
            "rk_k0_partials  row_partials  block=(256,1,1)  grid=(1056,1,1)  work=1  buffers=2  "
            "scratch=8448\n"
            "rk_k0_combine  row_combine  block=(256,1,1)  grid=(1,1,1)  work=1  buffers=2  "
            "scratch=8448\n");
  const std::string partials = EntryText(p.ptx, one.entry);
  const std::string combine = EntryText(p.ptx, two.entry);
  ASSERT_NE(partials, "") << p.ptx;
  ASSERT_NE(combine, "") << p.ptx;
  // Three parameters (input, output, scratch) and the run counter.
  EXPECT_TRUE(absl::StrContains(partials, "rk_k0_partials_param_3")) << partials;
  EXPECT_FALSE(absl::StrContains(partials, "rk_k0_partials_param_4")) << partials;
  // Pass 1 streams the input 16 bytes at a time, accumulates in f64 and
  // stores one partial; pass 2 reads the partials, never the input.
  EXPECT_TRUE(absl::StrContains(partials, "ld.global.nc.v4.f32")) << partials;
  EXPECT_TRUE(absl::StrContains(partials, "add.rn.f64")) << partials;
  EXPECT_EQ(Count(partials, "st.global.f64"), 1) << partials;
  EXPECT_TRUE(absl::StrContains(combine, ".f64")) << combine;
  EXPECT_FALSE(absl::StrContains(combine, ".f32\t")) << combine;
  EXPECT_EQ(Count(combine, "st.global.f32"), 1) << combine;  // the output, once
  EXPECT_TRUE(absl::StrContains(combine, "shfl.sync.bfly.b32")) << combine;

  PtxProgram rows = Ptx(R"(graph @g(%x: f32[64,1048576]) {
    %s = reduce_sum(%x) {axes=[1], keepdim=false} : f32[64]
    return %s
  })");
  ASSERT_EQ(rows.launches.size(), 2u);
  EXPECT_EQ(rows.launches[0].grid, (std::array<uint32_t, 3>{16, 64, 1}));
  EXPECT_EQ(rows.launches[1].grid, (std::array<uint32_t, 3>{1, 64, 1}));
  EXPECT_EQ(rows.launches[0].scratch_bytes, 64 * 16 * 8);
}

TEST(PtxTwoPassTest, TwoPassCombineOrderIsFixed) {
  // No atomics: pass 1 stores each chunk's partial to its own slot, pass 2
  // reads them back in a loop fixed by the code. The same shape gives the
  // same program.
  const std::string argmax_text = R"(graph @g(%x: f32[5000001]) {
    %a = argmax(%x) {axis=0, keepdim=false} : i64[]
    %m = reduce_max(%x) {axes=[0], keepdim=false} : f32[]
    return %a, %m
  })";
  for (const std::string& text : {std::string(kLongSum), argmax_text}) {
    PtxProgram p = Ptx(text);
    EXPECT_FALSE(absl::StrContains(p.ptx, "\tatom.")) << p.ptx;
    EXPECT_FALSE(absl::StrContains(p.ptx, "\tred.")) << p.ptx;
    EXPECT_FALSE(absl::StrContains(p.ptx, "%clock")) << p.ptx;
    EXPECT_EQ(Ptx(text).ptx, p.ptx);
  }
  // argmax and max over the same long row are two split kernels (not a row
  // group); argmax's partials are a value and an index.
  PtxProgram p = Ptx(argmax_text);
  ASSERT_EQ(p.launches.size(), 4u);
  for (const KernelLaunch& l : p.launches) EXPECT_NE(l.form, KernelForm::kRowReduction) << l.entry;
  EXPECT_EQ(p.launches[0].scratch_bytes, 2 * 8 * int64_t{p.launches[0].grid[0]});
  EXPECT_EQ(p.launches[2].scratch_bytes, 8 * int64_t{p.launches[2].grid[0]});
  const std::string partials = EntryText(p.ptx, "rk_k0_partials");
  EXPECT_EQ(Count(partials, "st.global.f32"), 1) << partials;
  EXPECT_EQ(Count(partials, "st.global.u64") + Count(partials, "st.global.b64"), 1) << partials;
}

TEST(PtxTwoPassTest, ShortOrManyRowsKeepOnePass) {
  for (const char* shape : {"300,70", "8,65535", "264,65536"}) {
    SCOPED_TRACE(shape);
    const std::string rows = std::string(shape).substr(0, std::string(shape).find(','));
    PtxProgram p = Ptx(absl::StrCat("graph @g(%x: f32[", shape, "]) {\n %s = reduce_sum(%x) ",
                                    "{axes=[1], keepdim=false} : f32[", rows,
                                    "]\n return %s\n}"));
    ASSERT_EQ(p.launches.size(), 1u);
    EXPECT_EQ(p.launches[0].form, KernelForm::kRowReduction);
    EXPECT_EQ(p.launches[0].scratch_bytes, 0);
  }
}

TEST(PtxTwoPassTest, LongRowSoftmaxSplitsItsEpilogueToo) {
  // Few long rows: softmax's max and sum kernels take two passes each (no
  // row group); the sum's pass 2 divides the row over 264 blocks a row.
  PtxProgram p = Ptx(R"(graph @g(%x: f32[4,2097152]) {
    %y = softmax(%x) {axis=1} : f32[4,2097152]
    return %y
  })");
  ASSERT_EQ(p.launches.size(), 4u);
  EXPECT_EQ(p.launches[0].entry, "rk_k0_partials");
  EXPECT_EQ(p.launches[1].entry, "rk_k0_combine");
  EXPECT_EQ(p.launches[1].grid, (std::array<uint32_t, 3>{1, 4, 1}));
  EXPECT_EQ(p.launches[2].entry, "rk_k1_partials");
  EXPECT_EQ(p.launches[3].entry, "rk_k1_combine");
  EXPECT_EQ(p.launches[3].grid, (std::array<uint32_t, 3>{264, 4, 1}));
  const std::string divide = EntryText(p.ptx, "rk_k1_combine");
  EXPECT_TRUE(absl::StrContains(divide, "st.global.v4.f32")) << divide;
}

}  // namespace
}  // namespace rk::compiler::cuda
