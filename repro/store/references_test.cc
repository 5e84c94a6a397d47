#include "repro/store/references.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <filesystem>
#include <thread>
#include <fstream>

namespace rk::repro {
namespace {

namespace fs = std::filesystem;

std::string Hex(char c) { return std::string(64, c); }

void Write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

TEST(ReferencesTest, FindsExactly64HexRuns) {
  absl::btree_set<Digest> found;
  AddDigestsInText("{\"sha256\": \"" + Hex('a') + "\", \"long\": \"" + std::string(128, 'b') +
                       "\", \"short\": \"" + std::string(63, 'c') + "\", x" + Hex('D') + "y, f" + Hex('e') + "}",
                   found);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found.begin()->Hex(), Hex('a'));
  EXPECT_EQ(found.rbegin()->Hex(), Hex('d'));  // upper case, normalized
}

TEST(ReferencesTest, ScansBundleFilesAndBlobDirectories) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  fs::path root = fs::path(tmp != nullptr ? tmp : "/tmp") / "bundles";
  fs::remove_all(root);
  Write(root / "bug1/repro.json", "{\"inputs\": [{\"sha256\": \"" + Hex('1') + "\"}]}");
  Write(root / "bug1/graph.rk", "// constant " + Hex('2') + "\n");
  Write(root / ("bug1/blobs/cas/" + Hex('3')), "object");
  Write(root / ("deep/bug2/blobs/cas/44/" + Hex('4')), "object");
  Write(root / "bug1/README.md", Hex('5'));          // not a reference file
  Write(root / ("bug1/other/" + Hex('6')), "object");  // not under blobs/cas
  absl::StatusOr<absl::btree_set<Digest>> found = CollectReferencedDigests({root.string()});
  ASSERT_TRUE(found.ok()) << found.status();
  std::vector<std::string> hex;
  for (const Digest& d : *found) hex.push_back(d.Hex());
  EXPECT_EQ(hex, (std::vector<std::string>{Hex('1'), Hex('2'), Hex('3'), Hex('4')}));

  absl::StatusOr<absl::btree_set<Digest>> one_file =
      CollectReferencedDigests({(root / "bug1/graph.rk").string()});
  ASSERT_TRUE(one_file.ok());
  EXPECT_EQ(one_file->size(), 1u);
}

// A writer beside the scan: temporary bundle directories appear and are
// renamed or removed while gc lists the references (found by
// tools/store_load_test.sh: "listing .../bundles: No such file or
// directory"). Every scan succeeds and sees the bundle that stays.
TEST(ReferencesTest, DirectoriesVanishingDuringTheScanAreSkipped) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  fs::path root = fs::path(tmp != nullptr ? tmp : "/tmp") / "churn";
  fs::remove_all(root);
  Write(root / "stable/repro.json", "{\"sha256\": \"" + Hex('7') + "\"}");
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (int i = 0; !stop.load(); ++i) {
      const fs::path temp = root / ("w/.tmp." + std::to_string(i % 8));
      Write(temp / ("blobs/cas/" + Hex('8')), "object");
      Write(temp / "deep/er/repro.json", "{}");
      std::error_code ignored;
      if (i % 2 == 0) {
        fs::rename(temp, root / ("w/b" + std::to_string(i % 8)), ignored);
        fs::remove_all(root / ("w/b" + std::to_string(i % 8)), ignored);
      }
      fs::remove_all(temp, ignored);
    }
  });
  for (int scan = 0; scan < 300; ++scan) {
    absl::StatusOr<absl::btree_set<Digest>> found = CollectReferencedDigests({root.string()});
    ASSERT_TRUE(found.ok()) << "scan " << scan << ": " << found.status();
    EXPECT_TRUE(found->contains(*Digest::FromHex(Hex('7'))));
  }
  stop = true;
  writer.join();
}

TEST(ReferencesTest, MissingRootIsAnError) {
  EXPECT_TRUE(absl::IsNotFound(CollectReferencedDigests({"/nonexistent/bundles"}).status()));
}

}  // namespace
}  // namespace rk::repro
