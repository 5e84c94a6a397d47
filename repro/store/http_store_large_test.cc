// A 256 MiB blob through the remote store and back (files on both sides, so
// neither end holds it in memory), against a real nginx.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "base/file_util.h"
#include "base/sha256.h"
#include "gtest/gtest.h"
#include "repro/store/http_store.h"
#include "repro/store/http_test_util.h"
#include "repro/store/store_test_util.h"

namespace rk::repro {
namespace {

TEST(HttpStoreLargeTest, QuarterGibRoundTrip) {
  absl::StatusOr<NginxServer> server = NginxServer::Start(MakeTestDir("nginx"));
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string dir = MakeTestDir("large");
  const std::string in = dir + "/in";
  // 256 distinct MiB: one random MiB, each copy stamped with its index.
  std::string block = RandomBytes(1 << 20, 7);
  {
    std::FILE* f = std::fopen(in.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    for (uint64_t i = 0; i < 256; ++i) {
      std::memcpy(block.data(), &i, sizeof(i));
      ASSERT_EQ(std::fwrite(block.data(), 1, block.size(), f), block.size());
    }
    ASSERT_EQ(std::fclose(f), 0);
  }
  HttpStoreOptions options;
  options.use_netrc = false;
  absl::StatusOr<std::unique_ptr<HttpStore>> store =
      HttpStore::Open(server->url() + "/team", options);
  ASSERT_TRUE(store.ok()) << store.status();
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<Digest> digest = (*store)->PutFile(in);
  ASSERT_TRUE(digest.ok()) << digest.status();
  double put = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  start = std::chrono::steady_clock::now();
  ASSERT_TRUE((*store)->GetToFile(*digest, dir + "/out").ok());
  double get = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("256 MiB on loopback: put %.2f s, get %.2f s (hashing included)\n", put, get);
  EXPECT_EQ(std::filesystem::file_size(dir + "/out"), uint64_t{256} << 20);
  // GetToFile verified the digest; check the file independently too.
  absl::StatusOr<std::string> bytes = ReadFileToString(dir + "/out");
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(Sha256(*bytes), *digest);
  // Stored raw on the server: a Bazel CAS entry of the same size.
  EXPECT_EQ(std::filesystem::file_size(server->ObjectPath("/team", digest->Hex())),
            uint64_t{256} << 20);
  // Present now: a second PutFile uploads nothing.
  uint64_t up = (*store)->counters().bytes_up;
  ASSERT_TRUE((*store)->PutFile(in).ok());
  EXPECT_EQ((*store)->counters().bytes_up, up);
}

}  // namespace
}  // namespace rk::repro
