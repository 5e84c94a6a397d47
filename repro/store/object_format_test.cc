#include "repro/store/object_format.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <string>

#include "base/sha256.h"

namespace rk::repro {
namespace {

TEST(ObjectHeaderTest, RoundTrips) {
  ObjectHeader header;
  header.flags = kFlagShuffled;
  header.element_size = 4;
  header.raw_size = 0x0102030405060708ull;
  std::string bytes = EncodeObjectHeader(header);
  ASSERT_EQ(bytes.size(), kObjectHeaderBytes);
  EXPECT_EQ(bytes.substr(0, 4), "RKCS");
  EXPECT_EQ(bytes[8], 0x08);  // little-endian size
  absl::StatusOr<ObjectHeader> back = DecodeObjectHeader(bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->raw_size, header.raw_size);
  EXPECT_TRUE(back->shuffled());
  EXPECT_EQ(back->element_size, 4);
}

TEST(ObjectHeaderTest, RejectsForeignTruncatedAndNewer) {
  std::string good = EncodeObjectHeader(ObjectHeader{});
  EXPECT_TRUE(absl::IsDataLoss(DecodeObjectHeader(good.substr(0, 9)).status()));
  std::string magic = good;
  magic[0] = 'X';
  EXPECT_TRUE(absl::IsDataLoss(DecodeObjectHeader(magic).status()));
  std::string newer = good;
  newer[4] = 2;
  absl::Status s = DecodeObjectHeader(newer).status();
  EXPECT_TRUE(absl::IsDataLoss(s));
  EXPECT_NE(s.message().find("version 2"), std::string::npos) << s;
  std::string bad_flags = good;
  bad_flags[6] = kFlagShuffled;  // shuffled with element size 0
  EXPECT_TRUE(absl::IsDataLoss(DecodeObjectHeader(bad_flags).status()));
}

// Writes through WriteObject into an in-memory file and reads it back.
std::string RoundTrip(const std::string& raw, int element_size, Digest* digest) {
  int fd = ::memfd_create("object", 0);
  EXPECT_GE(fd, 0);
  StringSource source(raw);
  absl::StatusOr<WrittenObject> written =
      WriteObject(source, fd, "memfd", element_size, CompressionOptions{});
  EXPECT_TRUE(written.ok()) << written.status();
  *digest = written->digest;
  EXPECT_EQ(written->raw_size, raw.size());
  EXPECT_EQ(static_cast<off_t>(written->stored_size), ::lseek(fd, 0, SEEK_END));
  ::lseek(fd, 0, SEEK_SET);
  std::string back;
  StringSink sink(&back);
  absl::Status status = ReadObject(fd, "memfd", written->digest, sink);
  EXPECT_TRUE(status.ok()) << status;
  ::close(fd);
  return back;
}

TEST(ObjectFormatTest, StreamsAcrossChunkBoundaries) {
  // Over four chunks (16 shuffle blocks each) with a ragged tail.
  std::string raw;
  for (size_t i = 0; i < (17 << 20) + 5; ++i) raw.push_back(static_cast<char>((i * 7) >> 9));
  for (int element_size : {0, 4, 3}) {
    Digest digest;
    EXPECT_EQ(RoundTrip(raw, element_size, &digest), raw) << element_size;
    EXPECT_EQ(digest, Sha256(raw));
  }
}

TEST(ObjectFormatTest, WrongExpectedDigestIsDataLoss) {
  int fd = ::memfd_create("object", 0);
  StringSource source("hello");
  ASSERT_TRUE(WriteObject(source, fd, "memfd", 0, CompressionOptions{}).ok());
  ::lseek(fd, 0, SEEK_SET);
  std::string back;
  StringSink sink(&back);
  Digest other = Sha256("world");
  absl::Status s = ReadObject(fd, "memfd", other, sink);
  EXPECT_TRUE(absl::IsDataLoss(s)) << s;
  EXPECT_NE(s.message().find(other.Hex()), std::string::npos) << s;
  EXPECT_NE(s.message().find(Sha256("hello").Hex()), std::string::npos) << s;
  ::close(fd);
}

}  // namespace
}  // namespace rk::repro
