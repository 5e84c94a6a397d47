#include "repro/isolate/fd_io.h"

#include <unistd.h>

#include <string>

#include "gtest/gtest.h"

namespace rk::repro::isolate_internal {
namespace {

TEST(FdIoTest, FramesRoundTripOverASocket) {
  auto pair = MakeSocketPair();
  ASSERT_TRUE(pair.ok()) << pair.status();
  ASSERT_TRUE(WriteFrame(pair->first.get(), 7, "hello").ok());
  ASSERT_TRUE(WriteFrame(pair->first.get(), 8, "").ok());
  pair->first.Reset();

  auto a = ReadFrame(pair->second.get());
  ASSERT_TRUE(a.ok() && a->has_value());
  EXPECT_EQ((*a)->tag, 7u);
  EXPECT_EQ((*a)->payload, "hello");
  auto b = ReadFrame(pair->second.get());
  ASSERT_TRUE(b.ok() && b->has_value());
  EXPECT_EQ((*b)->tag, 8u);
  EXPECT_EQ((*b)->payload, "");
  auto end = ReadFrame(pair->second.get());
  ASSERT_TRUE(end.ok());
  EXPECT_FALSE(end->has_value());
}

TEST(FdIoTest, TruncatedFrameIsAnError) {
  auto pair = MakeSocketPair();
  ASSERT_TRUE(pair.ok());
  ASSERT_TRUE(WriteAll(pair->first.get(), EncodeFrameHeader(1, 10) + "abc").ok());
  pair->first.Reset();
  auto frame = ReadFrame(pair->second.get());
  EXPECT_EQ(frame.status().code(), absl::StatusCode::kDataLoss);
}

TEST(FdIoTest, DecoderAcceptsOneByteAtATimeAndStopsAtFrameEnd) {
  std::string bytes = EncodeFrameHeader(3, 4) + "wxyz" + "next";
  FrameDecoder decoder;
  size_t pos = 0;
  while (!decoder.Complete()) {
    auto used = decoder.Feed(std::string_view(bytes).substr(pos, 1));
    ASSERT_TRUE(used.ok());
    pos += *used;
    EXPECT_EQ(decoder.Partial(), !decoder.Complete());
  }
  EXPECT_EQ(pos, kFrameHeaderSize + 4);
  Frame frame = decoder.Take();
  EXPECT_EQ(frame.tag, 3u);
  EXPECT_EQ(frame.payload, "wxyz");
  EXPECT_FALSE(decoder.Partial());
}

TEST(FdIoTest, DecoderRejectsAbsurdSizes) {
  FrameDecoder decoder;
  auto used = decoder.Feed(EncodeFrameHeader(1, kMaxFramePayload + 1));
  EXPECT_EQ(used.status().code(), absl::StatusCode::kDataLoss);
}

TEST(FdIoTest, WritingToAClosedPeerFailsWithoutSigpipe) {
  auto pair = MakeSocketPair();
  ASSERT_TRUE(pair.ok());
  pair->second.Reset();
  // Without MSG_NOSIGNAL this would kill the test with SIGPIPE.
  EXPECT_FALSE(WriteAll(pair->first.get(), std::string(1 << 20, 'x')).ok());
}

TEST(FdIoTest, DescriptorsTravelWithAMessage) {
  auto channel = MakeSocketPair();
  ASSERT_TRUE(channel.ok());
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  UniqueFd read_end(pipe_fds[0]), write_end(pipe_fds[1]);
  ASSERT_TRUE(SendWithFds(channel->first.get(), "fd!", {write_end.get()}).ok());
  write_end.Reset();

  std::string payload;
  std::vector<UniqueFd> fds;
  ASSERT_TRUE(ReceiveWithFds(channel->second.get(), &payload, 3, &fds, 2).ok());
  EXPECT_EQ(payload, "fd!");
  ASSERT_EQ(fds.size(), 1u);
  ASSERT_TRUE(WriteAll(fds[0].get(), "through").ok());
  fds.clear();
  char buf[16] = {};
  auto got = ReadExact(read_end.get(), buf, 7);
  ASSERT_TRUE(got.ok() && *got);
  EXPECT_EQ(std::string(buf, 7), "through");
}

}  // namespace
}  // namespace rk::repro::isolate_internal
