// The remote store against a real nginx (WebDAV PUT, the setup of
// docs/STORE.md) and a misbehaving server: round trips, concurrency, a server
// killed mid-transfer, 404/500/HTML/truncated answers, a corrupt object,
// authentication, and the local cache in front. The 256 MiB round trip is
// http_store_large_test.cc.
#include "repro/store/http_store.h"

#include <dirent.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "base/sha256.h"
#include "gtest/gtest.h"
#include "repro/store/caching_store.h"
#include "repro/store/http_test_util.h"
#include "repro/store/local_store.h"
#include "repro/store/open_store.h"
#include "repro/store/store_test_util.h"

namespace rk::repro {
namespace {

namespace fs = std::filesystem;

HttpStoreOptions FastOptions() {
  HttpStoreOptions options;
  options.connect_timeout_seconds = 2;
  options.stall_seconds = 3;
  options.retries = 2;
  options.backoff_seconds = 0.05;
  options.use_netrc = false;
  return options;
}

std::unique_ptr<HttpStore> OpenOrDie(const std::string& url,
                                     HttpStoreOptions options = FastOptions()) {
  absl::StatusOr<std::unique_ptr<HttpStore>> store = HttpStore::Open(url, options);
  EXPECT_TRUE(store.ok()) << store.status();
  return std::move(*store);
}

// Files below `dir`, recursively.
int CountFiles(const std::string& dir) {
  int n = 0;
  std::error_code ec;
  if (!fs::exists(dir, ec)) return 0;
  for (auto it = fs::recursive_directory_iterator(dir, ec); it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_regular_file(ec)) ++n;
  }
  return n;
}

TEST(StoreUrlTest, ParsesAndRedacts) {
  absl::StatusOr<StoreUrl> url = ParseStoreUrl("https://bob:s3cret@cache.example:9090/team/a/");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->scheme, "https");
  EXPECT_EQ(url->user, "bob");
  EXPECT_EQ(url->password, "s3cret");
  EXPECT_EQ(url->host_port, "cache.example:9090");
  EXPECT_EQ(url->prefix, "/team/a");
  EXPECT_EQ(url->Redacted(), "https://cache.example:9090/team/a");
  EXPECT_TRUE(ParseStoreUrl("http://[::1]:8080").ok());
  EXPECT_TRUE(LooksLikeUrl("http://x"));
  EXPECT_FALSE(LooksLikeUrl("/home/me/store"));
  EXPECT_FALSE(LooksLikeUrl("store"));
}

TEST(StoreUrlTest, RejectsMalformedUrlsWithoutShowingThePassword) {
  for (const char* bad : {"ftp://host/x", "http://", "http:///p", "http://host:99999/p",
                          "http://host:port/p", "http://host/p?q=1", "http://host/a//b",
                          "http://host/a/../b", "http://ho st/p", "http://:pw@host/p",
                          "grpc://host:9092"}) {
    absl::StatusOr<StoreUrl> url = ParseStoreUrl(bad);
    EXPECT_TRUE(absl::IsInvalidArgument(url.status())) << bad << ": " << url.status();
  }
  absl::StatusOr<StoreUrl> url = ParseStoreUrl("http://bob:s3cret@host:0/p");
  ASSERT_FALSE(url.ok());
  EXPECT_FALSE(absl::StrContains(url.status().message(), "s3cret")) << url.status();
}

class NginxStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<NginxServer> server = NginxServer::Start(MakeTestDir("nginx"));
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::make_unique<NginxServer>(*std::move(server));
  }
  std::string Url(const std::string& prefix = "/team") const { return server_->url() + prefix; }
  std::unique_ptr<NginxServer> server_;
};

TEST_F(NginxStoreTest, SmallRoundTripIsABazelCasEntry) {
  std::unique_ptr<HttpStore> store = OpenOrDie(Url());
  const std::string bytes = "hello, remote cache";
  absl::StatusOr<Digest> digest = store->Put(bytes);
  ASSERT_TRUE(digest.ok()) << digest.status();
  EXPECT_EQ(*digest, Sha256(bytes));
  // Raw bytes under /cas/<sha256>: what Bazel's HTTP cache protocol expects.
  EXPECT_EQ(ReadFileOrDie(server_->ObjectPath("/team", digest->Hex())), bytes);
  absl::StatusOr<std::string> got = store->Get(*digest);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, bytes);
  EXPECT_EQ(*store->Contains(*digest), true);
  absl::StatusOr<ObjectInfo> info = store->Stat(*digest);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->raw_size, bytes.size());
  // The empty blob too.
  absl::StatusOr<Digest> empty = store->Put("");
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(*store->Get(*empty), "");
  EXPECT_TRUE(absl::IsUnimplemented(store->Remove(*digest)));
}

TEST_F(NginxStoreTest, MissingObjectIsNotFound) {
  std::unique_ptr<HttpStore> store = OpenOrDie(Url());
  Digest digest = Sha256("never stored");
  EXPECT_EQ(*store->Contains(digest), false);
  absl::StatusOr<std::string> got = store->Get(digest);
  EXPECT_TRUE(absl::IsNotFound(got.status())) << got.status();
  EXPECT_TRUE(absl::StrContains(got.status().message(), digest.Hex()));
}

TEST_F(NginxStoreTest, EightConcurrentWritersOfOverlappingContent) {
  std::vector<std::string> blobs;
  for (int i = 0; i < 24; ++i) blobs.push_back(RandomBytes(50000 + i * 3000, 100 + i));
  std::vector<std::thread> writers;
  std::vector<absl::Status> results(8);
  for (int w = 0; w < 8; ++w) {
    writers.emplace_back([&, w] {
      std::unique_ptr<HttpStore> store = OpenOrDie(Url());
      for (int k = 0; k < 12; ++k) {  // writer w: blobs w, w+1, ..., overlapping its neighbours
        absl::StatusOr<Digest> d = store->Put(blobs[(w * 2 + k) % blobs.size()]);
        if (!d.ok()) {
          results[w] = d.status();
          return;
        }
      }
    });
  }
  for (std::thread& t : writers) t.join();
  for (const absl::Status& s : results) EXPECT_TRUE(s.ok()) << s;
  std::unique_ptr<HttpStore> reader = OpenOrDie(Url());
  for (const std::string& blob : blobs) {
    absl::StatusOr<std::string> got = reader->Get(Sha256(blob));
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(*got, blob);
  }
  // Parallel transfers on one store share its handle pool.
  absl::Status many = reader->TransferMany(static_cast<int>(blobs.size()), [&](int i) {
    absl::StatusOr<std::string> got = reader->Get(Sha256(blobs[i]));
    if (!got.ok()) return got.status();
    return *got == blobs[i] ? absl::OkStatus() : absl::InternalError("wrong bytes");
  });
  EXPECT_TRUE(many.ok()) << many;
}

TEST_F(NginxStoreTest, CorruptObjectOnTheServerIsDataLossAndNotCached) {
  const std::string bytes = RandomBytes(10000, 3);
  std::unique_ptr<HttpStore> remote = OpenOrDie(Url());
  absl::StatusOr<Digest> digest = remote->Put(bytes);
  ASSERT_TRUE(digest.ok()) << digest.status();
  std::string corrupt = bytes;
  corrupt[5000] ^= 1;
  const std::string path = server_->ObjectPath("/team", digest->Hex());
  fs::permissions(path, fs::perms::owner_write, fs::perm_options::add);
  WriteFileOrDie(path, corrupt);

  const std::string cache = MakeTestDir("cache");
  CachingStore store(std::move(*LocalStore::Open(cache)), OpenOrDie(Url()));
  absl::StatusOr<std::string> got = store.Get(*digest);
  EXPECT_TRUE(absl::IsDataLoss(got.status())) << got.status();
  EXPECT_TRUE(absl::StrContains(got.status().message(), digest->Hex())) << got.status();
  EXPECT_EQ(CountFiles(cache), 0);
  const std::string out = MakeTestDir("out") + "/blob";
  EXPECT_TRUE(absl::IsDataLoss(store.GetToFile(*digest, out)));
  EXPECT_FALSE(fs::exists(out));
  EXPECT_EQ(CountFiles(fs::path(out).parent_path().string()), 0);
  EXPECT_EQ(CountFiles(cache), 0);
}

TEST_F(NginxStoreTest, CacheInFrontTouchesTheNetworkOnce) {
  const std::string bytes = RandomBytes(200000, 9);
  ASSERT_TRUE(OpenOrDie(Url())->Put(bytes).ok());
  const std::string cache = MakeTestDir("cache");
  auto remote = OpenOrDie(Url());
  HttpStore* remote_view = remote.get();
  CachingStore store(std::move(*LocalStore::Open(cache)), std::move(remote));
  ASSERT_EQ(*store.Get(Sha256(bytes)), bytes);
  const int64_t after_first = remote_view->counters().requests;
  EXPECT_GE(after_first, 1);
  ASSERT_EQ(*store.Get(Sha256(bytes)), bytes);
  std::string streamed;
  StringSink sink(&streamed);
  ASSERT_TRUE(store.GetStream(Sha256(bytes), sink).ok());
  EXPECT_EQ(streamed, bytes);
  EXPECT_EQ(remote_view->counters().requests, after_first);
  // Write-through: a Put lands in both.
  const std::string more = "written through";
  absl::StatusOr<Digest> d = store.Put(more);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(ReadFileOrDie(server_->ObjectPath("/team", d->Hex())), more);
  EXPECT_TRUE(*store.local().Contains(*d));
}

TEST_F(NginxStoreTest, ServerKilledMidTransferLeavesNothingAndRecovers) {
  const std::string dir = MakeTestDir("mid");
  const size_t size = size_t{64} << 20;  // 4 s at the /slow/ rate
  WriteFileOrDie(dir + "/in", RandomBytes(size, 11));
  absl::StatusOr<Digest> digest = OpenOrDie(Url())->PutFile(dir + "/in");
  ASSERT_TRUE(digest.ok()) << digest.status();

  const std::string cache = MakeTestDir("cache");
  HttpStoreOptions options = FastOptions();
  CachingStore store(std::move(*LocalStore::Open(cache)),
                     OpenOrDie(server_->url() + "/slow/team", options));
  std::thread killer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    server_->Kill();
  });
  std::string received;
  StringSink sink(&received);
  absl::Status s = store.GetStream(*digest, sink);
  killer.join();
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(absl::IsUnavailable(s) || absl::IsDataLoss(s)) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), digest->Hex())) << s;
  EXPECT_EQ(CountFiles(cache), 0) << "a half-fetched object was left in the cache";
  EXPECT_TRUE(received.empty());

  // The same server back on the same port: the next read succeeds.
  absl::StatusOr<NginxServer> again =
      NginxServer::Start(server_->dir(), "", "", server_->port());
  ASSERT_TRUE(again.ok()) << again.status();
  CachingStore retry(std::move(*LocalStore::Open(cache)), OpenOrDie(Url()));
  absl::StatusOr<std::string> got = retry.Get(*digest);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->size(), size);
  EXPECT_TRUE(*retry.local().Contains(*digest));
}

TEST_F(NginxStoreTest, AuthRequiredAndMissing) {
  server_.reset();
  absl::StatusOr<NginxServer> server =
      NginxServer::Start(MakeTestDir("nginx_auth"), "reprokit", "pa55word");
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string url = server->url() + "/team";

  absl::StatusOr<Digest> denied = OpenOrDie(url)->Put("secret blob");
  EXPECT_TRUE(absl::IsUnauthenticated(denied.status())) << denied.status();
  EXPECT_TRUE(absl::StrContains(denied.status().message(), "401")) << denied.status();

  HttpStoreOptions wrong = FastOptions();
  wrong.user = "reprokit";
  wrong.password = "guess";
  absl::StatusOr<bool> guessed = OpenOrDie(url, wrong)->Contains(Sha256("x"));
  EXPECT_TRUE(absl::IsUnauthenticated(guessed.status())) << guessed.status();
  EXPECT_FALSE(absl::StrContains(guessed.status().message(), "guess"));

  HttpStoreOptions right = FastOptions();
  right.user = "reprokit";
  right.password = "pa55word";
  absl::StatusOr<Digest> put = OpenOrDie(url, right)->Put("secret blob");
  ASSERT_TRUE(put.ok()) << put.status();
  // Credentials in the URL work too, and never appear in messages.
  auto in_url = OpenOrDie("http://reprokit:pa55word@127.0.0.1:" +
                          std::to_string(server->port()) + "/team");
  EXPECT_EQ(*in_url->Get(*put), "secret blob");
  EXPECT_FALSE(absl::StrContains(in_url->ObjectUrl(*put), "pa55word"));

  // ~/.netrc.
  const std::string home = MakeTestDir("home");
  WriteFileOrDie(home + "/.netrc", "machine 127.0.0.1 login reprokit password pa55word\n");
  const char* old_home = std::getenv("HOME");
  std::string saved = old_home != nullptr ? old_home : "";
  setenv("HOME", home.c_str(), 1);
  HttpStoreOptions netrc = FastOptions();
  netrc.use_netrc = true;
  absl::StatusOr<std::string> via_netrc = OpenOrDie(url, netrc)->Get(*put);
  setenv("HOME", saved.c_str(), 1);
  ASSERT_TRUE(via_netrc.ok()) << via_netrc.status();
  EXPECT_EQ(*via_netrc, "secret blob");
}

TEST_F(NginxStoreTest, HttpsToAPlainServerIsATlsFailure) {
  auto store = OpenOrDie("https://127.0.0.1:" + std::to_string(server_->port()) + "/team");
  absl::StatusOr<bool> present = store->Contains(Sha256("x"));
  EXPECT_TRUE(absl::IsFailedPrecondition(present.status())) << present.status();
  EXPECT_TRUE(absl::StrContains(present.status().message(), "TLS")) << present.status();
}

TEST(HttpStoreErrorsTest, RefusedAndUnresolvable) {
  // A port nobody listens on: bind a server, stop it, reuse its port.
  int port = 0;
  {
    absl::StatusOr<NginxServer> server = NginxServer::Start(MakeTestDir("gone"));
    ASSERT_TRUE(server.ok()) << server.status();
    port = server->port();
  }
  auto store = OpenOrDie("http://127.0.0.1:" + std::to_string(port) + "/p");
  absl::StatusOr<Digest> put = store->Put("x");
  EXPECT_TRUE(absl::IsUnavailable(put.status())) << put.status();
  EXPECT_TRUE(absl::StrContains(put.status().message(), "attempts")) << put.status();
  EXPECT_EQ(store->counters().retries, 2);

  auto nowhere = OpenOrDie("http://no-such-host.invalid/p");
  absl::StatusOr<bool> present = nowhere->Contains(Sha256("x"));
  EXPECT_TRUE(absl::IsUnavailable(present.status())) << present.status();
}

class BadServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<BadServer> server = BadServer::Start(MakeTestDir("bad"));
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::make_unique<BadServer>(*std::move(server));
  }
  std::unique_ptr<BadServer> server_;
};

TEST_F(BadServerTest, ServerErrorsAreRetriedThenUnavailable) {
  auto store = OpenOrDie(server_->url("500"));
  absl::StatusOr<Digest> put = store->Put("x");
  EXPECT_TRUE(absl::IsUnavailable(put.status())) << put.status();
  EXPECT_TRUE(absl::StrContains(put.status().message(), "HTTP 500")) << put.status();
  EXPECT_EQ(store->counters().requests, 3);
}

TEST_F(BadServerTest, TransientErrorsAreRetried) {
  auto store = OpenOrDie(server_->url("flaky"));
  absl::StatusOr<Digest> put = store->Put("flaky blob");
  ASSERT_TRUE(put.ok()) << put.status();
  EXPECT_EQ(store->counters().retries, 2);
}

TEST_F(BadServerTest, NotFoundAnswers) {
  auto store = OpenOrDie(server_->url("404"));
  EXPECT_TRUE(absl::IsNotFound(store->Get(Sha256("x")).status()));
  EXPECT_FALSE(*store->Contains(Sha256("x")));
}

TEST_F(BadServerTest, HtmlInsteadOfBytesIsDataLoss) {
  auto store = OpenOrDie(server_->url("html"));
  const std::string cache = MakeTestDir("cache");
  CachingStore caching(std::move(*LocalStore::Open(cache)), std::move(store));
  Digest digest = Sha256("the real bytes");
  absl::StatusOr<std::string> got = caching.Get(digest);
  EXPECT_TRUE(absl::IsDataLoss(got.status())) << got.status();
  EXPECT_TRUE(absl::StrContains(got.status().message(), digest.Hex())) << got.status();
  EXPECT_TRUE(absl::StrContains(got.status().message(), "HTML")) << got.status();
  EXPECT_EQ(CountFiles(cache), 0);
}

TEST_F(BadServerTest, TruncatedBodyIsDataLoss) {
  const std::string bytes = RandomBytes(100000, 5);
  ASSERT_TRUE(OpenOrDie(server_->url("ok"))->Put(bytes).ok());
  auto store = OpenOrDie(server_->url("truncate"));
  absl::StatusOr<std::string> got = store->Get(Sha256(bytes));
  EXPECT_TRUE(absl::IsDataLoss(got.status())) << got.status();
  EXPECT_TRUE(absl::StrContains(got.status().message(), "truncated")) << got.status();
  const std::string out = MakeTestDir("out");
  EXPECT_TRUE(absl::IsDataLoss(store->GetToFile(Sha256(bytes), out + "/blob")));
  EXPECT_EQ(CountFiles(out), 0);
}

TEST(OpenStoreTest, DirectoryOrUrl) {
  const std::string dir = MakeTestDir("open");
  absl::StatusOr<std::unique_ptr<Store>> local = OpenStore(dir);
  ASSERT_TRUE(local.ok()) << local.status();
  EXPECT_NE(dynamic_cast<LocalStore*>(local->get()), nullptr);
  OpenStoreOptions options;
  options.cache_root = dir + "/cache";
  absl::StatusOr<std::unique_ptr<Store>> remote = OpenStore("http://127.0.0.1:1/p", options);
  ASSERT_TRUE(remote.ok()) << remote.status();
  EXPECT_NE(dynamic_cast<CachingStore*>(remote->get()), nullptr);
  options.no_cache = true;
  remote = OpenStore("http://127.0.0.1:1/p", options);
  ASSERT_TRUE(remote.ok()) << remote.status();
  EXPECT_NE(dynamic_cast<HttpStore*>(remote->get()), nullptr);
  EXPECT_TRUE(absl::IsInvalidArgument(OpenStore("s3://bucket/x").status()));
}

}  // namespace
}  // namespace rk::repro
