#include "repro/store/local_store.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/capability.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <functional>

#include "base/sha256.h"
#include "repro/store/store_test_util.h"

namespace rk::repro {
namespace {

namespace fs = std::filesystem;

std::unique_ptr<LocalStore> NewStore(const std::string& name) {
  absl::StatusOr<std::unique_ptr<LocalStore>> store = LocalStore::Open(MakeTestDir(name));
  EXPECT_TRUE(store.ok()) << store.status();
  return std::move(*store);
}

void ExpectRoundTrip(LocalStore& store, const std::string& bytes, PutOptions options = {}) {
  absl::StatusOr<Digest> digest = store.Put(bytes, options);
  ASSERT_TRUE(digest.ok()) << digest.status();
  EXPECT_EQ(*digest, Sha256(bytes));
  absl::StatusOr<std::string> back = store.Get(*digest);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(*back == bytes) << "size " << back->size() << " vs " << bytes.size();
  absl::StatusOr<ObjectInfo> info = store.Stat(*digest);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->raw_size, bytes.size());
  EXPECT_EQ(info->stored_size, fs::file_size(store.ObjectPath(*digest)));
}

std::vector<std::string> TempFiles(const std::string& root) {
  std::vector<std::string> temps;
  if (!fs::exists(root + "/cas")) return temps;
  for (const auto& e : fs::recursive_directory_iterator(root + "/cas")) {
    if (e.path().filename().string().rfind(".tmp.", 0) == 0) temps.push_back(e.path());
  }
  return temps;
}

// Runs `body` in a forked child and returns its exit code (or 128+signal).
int RunInChild(const std::function<int()>& body) {
  pid_t pid = ::fork();
  if (pid == 0) ::_exit(body());
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(LocalStoreTest, EmptyBlobRoundTrips) {
  auto store = NewStore("empty");
  ExpectRoundTrip(*store, "");
  EXPECT_EQ(Sha256("").Hex().substr(0, 2), "e3");
  EXPECT_TRUE(fs::exists(store->root() + "/cas/e3/" + Sha256("").Hex()));
}

TEST(LocalStoreTest, SmallBlobRoundTripsAndIsListed) {
  auto store = NewStore("small");
  ExpectRoundTrip(*store, "hello, store");
  Digest d = Sha256("hello, store");
  EXPECT_TRUE(*store->Contains(d));
  EXPECT_FALSE(*store->Contains(Sha256("absent")));
  EXPECT_EQ(ReadFileOrDie(store->ObjectPath(d)).substr(0, 4), "RKCS");
  absl::StatusOr<std::vector<Digest>> all = store->List();
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, std::vector<Digest>{d});
  EXPECT_TRUE(store->Remove(d).ok());
  EXPECT_TRUE(absl::IsNotFound(store->Get(d).status()));
  EXPECT_TRUE(absl::IsNotFound(store->Remove(d)));
}

TEST(LocalStoreTest, FiveMiBRoundTripsThroughWorkers) {
  auto store = NewStore("large");
  RecordProperty("zstd_workers", ZstdHasWorkers() ? "yes" : "no (single-threaded zstd)");
  ExpectRoundTrip(*store, RandomBytes(5 << 20, 1));
  ExpectRoundTrip(*store, SmoothFloats((5 << 20) / 4, 2));
}

TEST(LocalStoreTest, ShuffledFloatsRoundTripAndCompressBetter) {
  auto plain_store = NewStore("plain");
  auto shuffled_store = NewStore("shuffled");
  std::string floats = SmoothFloats(300001, 3);  // not a whole number of blocks
  ExpectRoundTrip(*plain_store, floats);
  ExpectRoundTrip(*shuffled_store, floats, PutOptions{.element_size = 4});
  Digest d = Sha256(floats);
  std::string header = ReadFileOrDie(shuffled_store->ObjectPath(d)).substr(0, kObjectHeaderBytes);
  ObjectHeader decoded = *DecodeObjectHeader(header);
  EXPECT_TRUE(decoded.shuffled());
  EXPECT_EQ(decoded.element_size, 4);
  EXPECT_LT(shuffled_store->Stat(d)->stored_size, plain_store->Stat(d)->stored_size);
  // Odd sizes: a ragged tail that is not a whole element.
  ExpectRoundTrip(*shuffled_store, floats + "xyz", PutOptions{.element_size = 4});
  ExpectRoundTrip(*shuffled_store, RandomBytes(1001, 4), PutOptions{.element_size = 8});
}

TEST(LocalStoreTest, StoringAnExistingObjectDoesNotRewriteIt) {
  auto store = NewStore("existing");
  std::string blob = RandomBytes(100000, 5);
  Digest d = *store->Put(blob);
  std::string path = store->ObjectPath(d);
  struct stat before;
  ASSERT_EQ(::stat(path.c_str(), &before), 0);
  ASSERT_TRUE(store->Put(blob).ok());
  ASSERT_TRUE(store->PutFile(path).ok());  // a different blob: the object file itself
  std::string copy = store->root() + "/blob.bin";
  WriteFileOrDie(copy, blob);
  EXPECT_EQ(*store->PutFile(copy), d);
  struct stat after;
  ASSERT_EQ(::stat(path.c_str(), &after), 0);
  // The same file, not a rewritten one (only its time moved forward, for gc).
  EXPECT_EQ(before.st_ino, after.st_ino);
  EXPECT_EQ(before.st_size, after.st_size);
}

TEST(LocalStoreTest, FilesAndStreamsRoundTrip) {
  auto store = NewStore("files");
  std::string blob = SmoothFloats(3 << 20, 6);  // 12 MiB
  std::string in = store->root() + "/in.bin";
  WriteFileOrDie(in, blob);
  absl::StatusOr<Digest> d = store->PutFile(in, PutOptions{.element_size = 4});
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(*d, Sha256(blob));
  std::string out = store->root() + "/out.bin";
  ASSERT_TRUE(store->GetToFile(*d, out).ok());
  EXPECT_TRUE(ReadFileOrDie(out) == blob);

  // A pipe-like source: no size hint, read in odd pieces.
  int fd = ::open(in.c_str(), O_RDONLY);
  FdSource source(fd);
  auto other = NewStore("stream");
  absl::StatusOr<Digest> streamed = other->PutStream(source);
  ::close(fd);
  ASSERT_TRUE(streamed.ok()) << streamed.status();
  EXPECT_EQ(*streamed, *d);
  EXPECT_TRUE(*other->Get(*d) == blob);
  EXPECT_TRUE(TempFiles(other->root()).empty());
}

// Corrupts the stored object of `blob` with `damage` and checks that reads
// fail with DataLoss naming the digest and the path, and Verify reports it.
void ExpectCorruptionDetected(const std::function<void(const std::string& path)>& damage) {
  auto store = NewStore("corrupt");
  std::string blob = SmoothFloats(50000, 7);
  Digest d = *store->Put(blob);
  ASSERT_TRUE(store->Put("an intact neighbour").ok());
  std::string path = store->ObjectPath(d);
  damage(path);
  absl::Status status = store->Get(d).status();
  EXPECT_TRUE(absl::IsDataLoss(status)) << status;
  EXPECT_NE(status.message().find(d.Hex()), std::string::npos) << status;
  EXPECT_NE(status.message().find(path), std::string::npos) << status;
  std::string out = store->root() + "/out.bin";
  EXPECT_TRUE(absl::IsDataLoss(store->GetToFile(d, out)));
  EXPECT_FALSE(fs::exists(out));
  absl::StatusOr<VerifyReport> report = store->Verify();
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->objects, 2);
  ASSERT_EQ(report->corrupt.size(), 1u);
  EXPECT_EQ(report->corrupt[0].path, path);
  ASSERT_TRUE(store->Verify(/*remove_corrupt=*/true).ok());
  EXPECT_FALSE(*store->Contains(d));
  ExpectRoundTrip(*store, blob);  // the next Put restores it
}

TEST(LocalStoreTest, FlippedByteIsDataLoss) {
  ExpectCorruptionDetected([](const std::string& path) {
    std::string bytes = ReadFileOrDie(path);
    bytes[bytes.size() / 2] ^= 0x10;
    WriteFileOrDie(path, bytes);
  });
}

TEST(LocalStoreTest, TruncatedObjectIsDataLoss) {
  ExpectCorruptionDetected([](const std::string& path) {
    std::string bytes = ReadFileOrDie(path);
    WriteFileOrDie(path, bytes.substr(0, bytes.size() - 10));
  });
}

TEST(LocalStoreTest, HeaderOnlyObjectIsDataLoss) {
  ExpectCorruptionDetected([](const std::string& path) {
    WriteFileOrDie(path, ReadFileOrDie(path).substr(0, 7));
  });
}

TEST(LocalStoreTest, ObjectUnderTheWrongNameIsDataLoss) {
  ExpectCorruptionDetected([](const std::string& path) {
    auto scratch = NewStore("scratch");
    Digest other = *scratch->Put("some other blob");
    WriteFileOrDie(path, ReadFileOrDie(scratch->ObjectPath(other)));
  });
}

// Drops root's power to ignore file permissions, so that a read-only
// directory is read-only to this process too. False if the kernel refuses.
bool DropFileCapabilities() {
  if (::geteuid() != 0) return true;
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  return ::syscall(SYS_capset, &header, data) == 0;
}

TEST(LocalStoreTest, ReadOnlyStoreGivesCleanErrorAndStillReads) {
  auto store = NewStore("readonly");
  Digest present = *store->Put("already here");
  std::string shard = store->root() + "/cas/" + present.Hex().substr(0, 2);
  ASSERT_EQ(::chmod((store->root() + "/cas").c_str(), 0555), 0);
  ASSERT_EQ(::chmod(shard.c_str(), 0555), 0);
  constexpr int kSkip = 77;
  int code = RunInChild([&]() {
    if (!DropFileCapabilities()) return kSkip;
    if (!store->Get(present).ok()) return 3;
    // Same shard as `present` (temp file cannot be created) and a new shard
    // (directory cannot be created).
    std::string same_shard;
    for (int i = 0; same_shard.empty(); ++i) {
      std::string candidate = "blob " + std::to_string(i);
      if (Sha256(candidate).Hex().substr(0, 2) == present.Hex().substr(0, 2)) same_shard = candidate;
    }
    for (const std::string& blob : {same_shard, std::string("elsewhere")}) {
      absl::Status s = store->Put(blob).status();
      if (!absl::IsPermissionDenied(s)) return 4;
      if (s.message().find(store->root()) == std::string::npos) return 5;
      if (s.message().find("Permission denied") == std::string::npos) return 6;
    }
    return 0;
  });
  ::chmod((store->root() + "/cas").c_str(), 0755);
  ::chmod(shard.c_str(), 0755);
  if (code == kSkip) GTEST_SKIP() << "running as root and capset() refused: cannot make a "
                                     "directory read-only to this process";
  EXPECT_EQ(code, 0);
  EXPECT_TRUE(TempFiles(store->root()).empty());
  EXPECT_EQ(store->List()->size(), 1u);
}

TEST(LocalStoreTest, RootThatIsAFileIsAnError) {
  std::string dir = MakeTestDir("notadir");
  WriteFileOrDie(dir + "/file", "x");
  EXPECT_TRUE(absl::IsFailedPrecondition(LocalStore::Open(dir + "/file").status()));
  auto store = LocalStore::Open(dir + "/file/below");
  ASSERT_TRUE(store.ok());
  absl::Status s = (*store)->Put("x").status();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find(dir + "/file"), std::string::npos) << s;
}

TEST(LocalStoreTest, FileSizeLimitFailsCleanlyWithoutPartialObject) {
  auto store = NewStore("nospace");
  std::string blob = RandomBytes(1 << 20, 8);  // incompressible
  int code = RunInChild([&]() {
    ::signal(SIGXFSZ, SIG_IGN);
    rlimit limit{64 << 10, 64 << 10};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) return 3;
    absl::Status s = store->Put(blob).status();
    if (!absl::IsResourceExhausted(s)) return 4;
    if (s.message().find(Sha256(blob).Hex()) == std::string::npos) return 5;
    StringSource source(blob);
    if (!absl::IsResourceExhausted(store->PutStream(source).status())) return 6;
    return 0;
  });
  EXPECT_EQ(code, 0);
  EXPECT_FALSE(*store->Contains(Sha256(blob)));
  EXPECT_TRUE(TempFiles(store->root()).empty());
  absl::StatusOr<VerifyReport> report = store->Verify();
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->corrupt.empty());
  EXPECT_EQ(report->objects, 0);
  ExpectRoundTrip(*store, blob);  // without the limit it fits
}

TEST(LocalStoreTest, StatsAndGc) {
  auto store = NewStore("gc");
  Digest keep = *store->Put(SmoothFloats(10000, 9), PutOptions{.element_size = 4});
  Digest drop1 = *store->Put("drop me");
  Digest drop2 = *store->Put(RandomBytes(5000, 10));
  std::string stale = store->root() + "/cas/.tmp.abandoned.1.2";
  WriteFileOrDie(stale, "partial");
  timeval old_times[2] = {{1000, 0}, {1000, 0}};
  ASSERT_EQ(::utimes(stale.c_str(), old_times), 0);
  WriteFileOrDie(store->root() + "/cas/" + keep.Hex().substr(0, 2) + "/junk", "?");

  absl::StatusOr<StoreStats> stats = store->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->objects, 3);
  EXPECT_EQ(stats->raw_bytes, 40000u + 7 + 5000);
  EXPECT_GT(stats->ratio(), 1.0);
  EXPECT_EQ(stats->temp_files, 1);
  EXPECT_EQ(store->Verify()->stray_files.size(), 1u);

  auto only_keep = [&]() -> absl::StatusOr<absl::btree_set<Digest>> {
    return absl::btree_set<Digest>{keep};
  };
  absl::StatusOr<GcReport> dry = store->Gc(only_keep, /*dry_run=*/true);
  ASSERT_TRUE(dry.ok());
  EXPECT_EQ(dry->kept, 1);
  ASSERT_EQ(dry->removed.size(), 2u);
  EXPECT_EQ(store->List()->size(), 3u);
  EXPECT_TRUE(fs::exists(stale));

  absl::StatusOr<GcReport> real = store->Gc(only_keep, /*dry_run=*/false);
  ASSERT_TRUE(real.ok());
  EXPECT_EQ(real->removed.size(), 2u);
  EXPECT_EQ(real->temp_files_removed, 1);
  EXPECT_EQ(*store->List(), std::vector<Digest>{keep});
  EXPECT_FALSE(*store->Contains(drop1));
  EXPECT_FALSE(*store->Contains(drop2));
  EXPECT_FALSE(fs::exists(stale));
}

// A capture that writes its bundle and pushes its blobs while gc runs: the
// references were collected before the bundle existed, so its new object is
// unreferenced, and must survive because it was not there when gc listed.
TEST(LocalStoreTest, GcKeepsAnObjectWrittenWhileItCollectsReferences) {
  auto store = NewStore("gc_race_new");
  Digest old_blob = *store->Put("unreferenced from before");
  Digest pushed;
  absl::StatusOr<GcReport> report = store->Gc(
      [&]() -> absl::StatusOr<absl::btree_set<Digest>> {
        pushed = *store->Put("pushed while gc runs");
        return absl::btree_set<Digest>{};
      },
      /*dry_run=*/false);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(*store->Contains(pushed));
  EXPECT_FALSE(*store->Contains(old_blob));
  ASSERT_EQ(report->removed.size(), 1u);
  EXPECT_EQ(report->removed[0].digest, old_blob);
  EXPECT_TRUE(store->Verify()->corrupt.empty());
}

// The same with a blob the store already had: the capture's Put finds it
// present and writes nothing, but moves its time forward, and gc keeps it.
TEST(LocalStoreTest, GcKeepsAnObjectStoredAgainWhileItCollectsReferences) {
  auto store = NewStore("gc_race_again");
  Digest again = *store->Put("stored again while gc runs");
  Digest stream_again = *store->Put(RandomBytes(3000, 4));
  Digest gone = *store->Put("nobody wants this");
  for (bool dry_run : {true, false}) {
    SCOPED_TRACE(dry_run);
    absl::StatusOr<GcReport> report = store->Gc(
        [&]() -> absl::StatusOr<absl::btree_set<Digest>> {
          EXPECT_EQ(*store->Put("stored again while gc runs"), again);
          const std::string bytes = RandomBytes(3000, 4);  // StringSource only views it
          StringSource source(bytes);
          EXPECT_EQ(*store->PutStream(source), stream_again);
          return absl::btree_set<Digest>{};
        },
        dry_run);
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_EQ(report->kept, 2);
    ASSERT_EQ(report->removed.size(), 1u);
    EXPECT_EQ(report->removed[0].digest, gone);
  }
  EXPECT_TRUE(*store->Contains(again));
  EXPECT_TRUE(*store->Contains(stream_again));
  EXPECT_FALSE(*store->Contains(gone));
  EXPECT_EQ(*store->Get(again), "stored again while gc runs");
}

// However fast the second Put follows the first, the time moves forward.
TEST(LocalStoreTest, PutOfAPresentBlobMovesItsTimeForward) {
  auto store = NewStore("freshen");
  Digest d = *store->Put("blob");
  struct stat first, second;
  ASSERT_EQ(::stat(store->ObjectPath(d).c_str(), &first), 0);
  ASSERT_TRUE(store->Put("blob").ok());
  ASSERT_EQ(::stat(store->ObjectPath(d).c_str(), &second), 0);
  EXPECT_TRUE(second.st_mtim.tv_sec > first.st_mtim.tv_sec ||
              (second.st_mtim.tv_sec == first.st_mtim.tv_sec &&
               second.st_mtim.tv_nsec > first.st_mtim.tv_nsec));
  EXPECT_EQ((second.st_mode & 0777), 0444u);  // still read-only
}

}  // namespace
}  // namespace rk::repro
