#include "repro/bundle/pack.h"

#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/leftovers.h"
#include "repro/bundle/bundle.h"

namespace rk::repro {
namespace {

namespace fs = std::filesystem;

constexpr size_t kBlock = 512;
constexpr size_t kChunk = 1 << 20;
constexpr int kZstdLevel = 9;

absl::Status Errno(std::string_view what, const std::string& path) {
  return absl::InternalError(absl::StrCat(std::string(what), " ", path, ": ",
                                          std::strerror(errno)));
}

std::string TempBeside(const fs::path& target) {
  std::random_device rd;
  return (target.parent_path() /
          absl::StrCat(".tmp.", target.filename().string(), ".", getpid(), ".", rd()))
      .string();
}

// ---------------------------------------------------------------- zstd

class ZstdWriter {
 public:
  ZstdWriter(std::FILE* file, std::string path)
      : file_(file), path_(std::move(path)), cctx_(ZSTD_createCCtx()), out_(ZSTD_CStreamOutSize()) {
    ZSTD_CCtx_setParameter(cctx_, ZSTD_c_compressionLevel, kZstdLevel);
    ZSTD_CCtx_setParameter(cctx_, ZSTD_c_checksumFlag, 1);
  }
  ~ZstdWriter() { ZSTD_freeCCtx(cctx_); }

  absl::Status Write(const char* data, size_t size) { return Feed(data, size, ZSTD_e_continue); }
  absl::Status Finish() { return Feed(nullptr, 0, ZSTD_e_end); }

 private:
  absl::Status Feed(const char* data, size_t size, ZSTD_EndDirective mode) {
    ZSTD_inBuffer in{data, size, 0};
    while (true) {
      ZSTD_outBuffer out{out_.data(), out_.size(), 0};
      size_t remaining = ZSTD_compressStream2(cctx_, &out, &in, mode);
      if (ZSTD_isError(remaining)) {
        return absl::InternalError(absl::StrCat("zstd: ", ZSTD_getErrorName(remaining)));
      }
      if (out.pos > 0 && std::fwrite(out_.data(), 1, out.pos, file_) != out.pos) {
        return Errno("cannot write", path_);
      }
      bool done = mode == ZSTD_e_end ? remaining == 0 : in.pos == in.size;
      if (done) return absl::OkStatus();
    }
  }

  std::FILE* file_;
  std::string path_;
  ZSTD_CCtx* cctx_;
  std::vector<char> out_;
};

// Pulls decompressed bytes out of a .zst file.
class ZstdReader {
 public:
  ZstdReader(std::FILE* file, std::string path)
      : file_(file), path_(std::move(path)), dctx_(ZSTD_createDCtx()),
        in_buf_(ZSTD_DStreamInSize()), out_buf_(ZSTD_DStreamOutSize()) {}
  ~ZstdReader() { ZSTD_freeDCtx(dctx_); }

  // Exactly `size` bytes, or DataLoss when the archive ends first.
  absl::Status ReadExact(char* dst, size_t size) {
    while (size > 0) {
      if (out_pos_ == out_len_) {
        absl::StatusOr<bool> more = Fill();
        if (!more.ok()) return more.status();
        if (!*more) return Corrupt("truncated archive (ends inside the tar data)");
      }
      size_t n = std::min(size, out_len_ - out_pos_);
      std::memcpy(dst, out_buf_.data() + out_pos_, n);
      out_pos_ += n;
      dst += n;
      size -= n;
    }
    return absl::OkStatus();
  }

  // True when nothing but zero bytes remain.
  absl::StatusOr<bool> RestIsZero() {
    while (true) {
      for (; out_pos_ < out_len_; ++out_pos_) {
        if (out_buf_[out_pos_] != 0) return false;
      }
      absl::StatusOr<bool> more = Fill();
      if (!more.ok()) return more.status();
      if (!*more) return true;
    }
  }

  absl::Status Corrupt(std::string_view why) const {
    return absl::DataLossError(absl::StrCat(path_, ": ", std::string(why)));
  }

 private:
  // Decompresses more; false at a clean end of input.
  absl::StatusOr<bool> Fill() {
    out_pos_ = out_len_ = 0;
    while (out_len_ == 0) {
      if (in_.pos == in_.size) {
        size_t n = std::fread(in_buf_.data(), 1, in_buf_.size(), file_);
        if (n == 0) {
          if (std::ferror(file_)) return Errno("cannot read", path_);
          if (!frame_done_) return Corrupt("truncated archive (incomplete zstd frame)");
          return false;
        }
        in_ = {in_buf_.data(), n, 0};
      }
      ZSTD_outBuffer out{out_buf_.data(), out_buf_.size(), 0};
      size_t ret = ZSTD_decompressStream(dctx_, &out, &in_);
      if (ZSTD_isError(ret)) {
        return Corrupt(absl::StrCat("corrupt archive: zstd: ", ZSTD_getErrorName(ret)));
      }
      frame_done_ = ret == 0;
      out_len_ = out.pos;
    }
    return true;
  }

  std::FILE* file_;
  std::string path_;
  ZSTD_DCtx* dctx_;
  std::vector<char> in_buf_;
  std::vector<char> out_buf_;
  ZSTD_inBuffer in_{nullptr, 0, 0};
  size_t out_pos_ = 0;
  size_t out_len_ = 0;
  bool frame_done_ = false;
};

// ---------------------------------------------------------------- ustar

using Header = std::array<char, kBlock>;

void PutOctal(Header& h, size_t offset, size_t width, uint64_t value) {
  // width - 1 octal digits, then NUL.
  std::snprintf(h.data() + offset, width, "%0*llo", static_cast<int>(width - 1),
                static_cast<unsigned long long>(value));
}

uint64_t HeaderChecksum(const Header& h) {
  uint64_t sum = 0;
  for (size_t i = 0; i < kBlock; ++i) {
    sum += (i >= 148 && i < 156) ? ' ' : static_cast<unsigned char>(h[i]);
  }
  return sum;
}

// Splits `path` into ustar's prefix (155) and name (100) fields.
absl::StatusOr<Header> MakeHeader(const std::string& path, bool directory, uint64_t size,
                                  unsigned mode) {
  Header h{};
  std::string name = path, prefix;
  if (name.size() > 100) {
    size_t cut = path.rfind('/', 155);
    while (cut != std::string::npos && path.size() - cut - 1 > 100) cut = std::string::npos;
    if (cut == std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat("path too long for ustar: ", path));
    }
    prefix = path.substr(0, cut);
    name = path.substr(cut + 1);
  }
  std::memcpy(h.data(), name.data(), name.size());
  PutOctal(h, 100, 8, mode);
  PutOctal(h, 108, 8, 0);
  PutOctal(h, 116, 8, 0);
  PutOctal(h, 124, 12, size);
  PutOctal(h, 136, 12, 0);
  h[156] = directory ? '5' : '0';
  std::memcpy(h.data() + 257, "ustar", 6);
  std::memcpy(h.data() + 263, "00", 2);
  std::memcpy(h.data() + 345, prefix.data(), prefix.size());
  std::snprintf(h.data() + 148, 8, "%06llo", static_cast<unsigned long long>(HeaderChecksum(h)));
  h[155] = ' ';
  return h;
}

// A parsed octal field; nullopt when malformed.
std::optional<uint64_t> ParseOctal(const Header& h, size_t offset, size_t width) {
  uint64_t v = 0;
  size_t i = offset, end = offset + width;
  while (i < end && h[i] == ' ') ++i;
  size_t digits = 0;
  for (; i < end && h[i] >= '0' && h[i] <= '7'; ++i, ++digits) {
    if (v > (UINT64_MAX >> 3)) return std::nullopt;
    v = v * 8 + static_cast<uint64_t>(h[i] - '0');
  }
  for (; i < end; ++i) {
    if (h[i] != ' ' && h[i] != '\0') return std::nullopt;
  }
  if (digits == 0) return std::nullopt;
  return v;
}

std::string Field(const Header& h, size_t offset, size_t width) {
  size_t n = 0;
  while (n < width && h[offset + n] != '\0') ++n;
  return std::string(h.data() + offset, n);
}

// Checks an archive path and returns it relative to the top-level directory
// ("" for the top-level directory itself).
absl::StatusOr<std::string> SafeRelativePath(std::string path, std::string& top) {
  if (path.empty()) return absl::InvalidArgumentError("entry with an empty path");
  if (path[0] == '/') return absl::InvalidArgumentError(absl::StrCat("absolute path: ", path));
  while (!path.empty() && path.back() == '/') path.pop_back();
  std::vector<std::string> parts = absl::StrSplit(path, '/');
  for (const std::string& part : parts) {
    if (part.empty() || part == "." || part == "..") {
      return absl::InvalidArgumentError(absl::StrCat("unsafe path: ", path));
    }
    if (part.find('\\') != std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat("unsafe path: ", path));
    }
  }
  if (top.empty()) top = parts[0];
  if (parts[0] != top) {
    return absl::InvalidArgumentError(
        absl::StrCat("entry outside the top-level directory '", top, "': ", path));
  }
  parts.erase(parts.begin());
  return absl::StrJoin(parts, "/");
}

struct Entry {
  std::string relative;  // "" for the bundle directory itself
  bool directory;
  uint64_t size;
  unsigned mode;
};

absl::StatusOr<std::vector<Entry>> ListBundle(const fs::path& root) {
  std::vector<Entry> entries = {{"", true, 0, 0755}};
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    const fs::directory_entry& e = *it;
    std::string rel = fs::relative(e.path(), root).generic_string();
    if (e.path().filename().string().rfind(".tmp.", 0) == 0) {
      if (e.is_directory()) it.disable_recursion_pending();
      continue;  // an interrupted store write
    }
    fs::file_status st = e.symlink_status();
    if (fs::is_symlink(st)) {
      return absl::InvalidArgumentError(absl::StrCat("refusing to pack a symlink: ", rel));
    }
    if (fs::is_directory(st)) {
      entries.push_back({rel, true, 0, 0755});
    } else if (fs::is_regular_file(st)) {
      bool writable = (st.permissions() & fs::perms::owner_write) != fs::perms::none;
      entries.push_back({rel, false, static_cast<uint64_t>(e.file_size()),
                         writable ? 0644u : 0444u});
    } else {
      return absl::InvalidArgumentError(absl::StrCat("refusing to pack a special file: ", rel));
    }
  }
  if (ec) return absl::InternalError(absl::StrCat("cannot list ", root.string(), ": ", ec.message()));
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.relative < b.relative; });
  return entries;
}

absl::Status WriteEntries(const fs::path& root, const std::string& top,
                          const std::vector<Entry>& entries, ZstdWriter& out, PackStats& stats) {
  std::vector<char> buffer(kChunk);
  for (const Entry& e : entries) {
    std::string path = e.relative.empty() ? top + "/" : absl::StrCat(top, "/", e.relative,
                                                                        e.directory ? "/" : "");
    absl::StatusOr<Header> h = MakeHeader(path, e.directory, e.size, e.mode);
    if (!h.ok()) return h.status();
    if (absl::Status s = out.Write(h->data(), kBlock); !s.ok()) return s;
    if (e.directory) {
      ++stats.directories;
      continue;
    }
    ++stats.files;
    std::string file = (root / e.relative).string();
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> in(std::fopen(file.c_str(), "rb"), std::fclose);
    if (!in) return Errno("cannot open", file);
    uint64_t left = e.size;
    while (left > 0) {
      size_t n = std::fread(buffer.data(), 1, std::min<uint64_t>(left, buffer.size()), in.get());
      if (n == 0) return absl::InternalError(absl::StrCat(file, " changed while packing"));
      if (absl::Status s = out.Write(buffer.data(), n); !s.ok()) return s;
      left -= n;
    }
    stats.file_bytes += e.size;
    static const char kZeros[kBlock] = {};
    if (size_t pad = (kBlock - e.size % kBlock) % kBlock; pad > 0) {
      if (absl::Status s = out.Write(kZeros, pad); !s.ok()) return s;
    }
  }
  static const char kEnd[2 * kBlock] = {};
  return out.Write(kEnd, sizeof(kEnd));
}

// Reads entries from `in` and creates them under `dest`.
absl::Status ExtractEntries(ZstdReader& in, const fs::path& dest, const UnpackLimits& limits,
                            PackStats& stats) {
  std::string top;
  std::vector<char> buffer(kChunk);
  int64_t entries = 0;
  while (true) {
    Header h;
    if (absl::Status s = in.ReadExact(h.data(), kBlock); !s.ok()) return s;
    if (std::all_of(h.begin(), h.end(), [](char c) { return c == 0; })) {
      absl::StatusOr<bool> zero = in.RestIsZero();
      if (!zero.ok()) return zero.status();
      if (!*zero) return in.Corrupt("data after the end-of-archive marker");
      return absl::OkStatus();
    }
    if (++entries > limits.max_entries) return in.Corrupt("too many entries");
    std::optional<uint64_t> checksum = ParseOctal(h, 148, 8);
    if (!checksum || *checksum != HeaderChecksum(h)) return in.Corrupt("bad tar header checksum");
    if (Field(h, 257, 5) != "ustar") return in.Corrupt("not a ustar archive");
    std::optional<uint64_t> size = ParseOctal(h, 124, 12);
    if (!size) return in.Corrupt("bad size field in tar header");
    std::string prefix = Field(h, 345, 155), name = Field(h, 0, 100);
    std::string path = prefix.empty() ? name : absl::StrCat(prefix, "/", name);
    char type = h[156];
    bool directory = type == '5';
    if (type != '0' && type != '\0' && !directory) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unsupported entry '", path, "' of type '", std::string(1, type),
          "' (only regular files and directories; no links)"));
    }
    absl::StatusOr<std::string> rel = SafeRelativePath(path, top);
    if (!rel.ok()) return rel.status();
    fs::path target = rel->empty() ? dest : dest / *rel;
    std::error_code ec;
    if (directory) {
      if (*size != 0) return in.Corrupt(absl::StrCat("directory with data: ", path));
      fs::create_directories(target, ec);
      if (ec) return absl::InternalError(absl::StrCat("cannot create ", target.string()));
      ++stats.directories;
      continue;
    }
    if (rel->empty()) return absl::InvalidArgumentError("the top-level entry is not a directory");
    if (stats.file_bytes + *size > limits.max_total_bytes) {
      return absl::InvalidArgumentError(absl::StrCat(
          "archive contents exceed the limit of ", limits.max_total_bytes,
          " bytes (at ", path, "); raise it with --max-bytes if the bundle is that large"));
    }
    fs::create_directories(target.parent_path(), ec);
    if (fs::exists(fs::symlink_status(target, ec))) {
      return absl::InvalidArgumentError(absl::StrCat("duplicate entry: ", path));
    }
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> out(std::fopen(target.c_str(), "wbx"),
                                                        std::fclose);
    if (!out) return Errno("cannot create", target.string());
    uint64_t left = *size;
    while (left > 0) {
      size_t n = static_cast<size_t>(std::min<uint64_t>(left, buffer.size()));
      if (absl::Status s = in.ReadExact(buffer.data(), n); !s.ok()) return s;
      if (std::fwrite(buffer.data(), 1, n, out.get()) != n) {
        return Errno("cannot write", target.string());
      }
      left -= n;
    }
    if (std::fflush(out.get()) != 0) return Errno("cannot write", target.string());
    std::optional<uint64_t> mode = ParseOctal(h, 100, 8);
    ::chmod(target.c_str(), static_cast<mode_t>(mode.value_or(0644) & 0755));
    if (size_t pad = (kBlock - *size % kBlock) % kBlock; pad > 0) {
      if (absl::Status s = in.ReadExact(buffer.data(), pad); !s.ok()) return s;
    }
    ++stats.files;
    stats.file_bytes += *size;
  }
}

}  // namespace

absl::StatusOr<PackStats> PackBundle(const std::string& bundle_dir,
                                     const std::string& archive_path) {
  absl::StatusOr<LoadedBundle> loaded = LoadBundle(bundle_dir);
  if (!loaded.ok()) return loaded.status();
  std::error_code ec;
  fs::path root = fs::absolute(bundle_dir, ec).lexically_normal();
  if (!root.has_filename()) root = root.parent_path();
  std::string top = root.filename().string();
  if (top.empty() || top == "." || top == "..") top = "bundle";
  absl::StatusOr<std::vector<Entry>> entries = ListBundle(root);
  if (!entries.ok()) return entries.status();

  fs::path target = fs::absolute(archive_path, ec);
  // A pack killed with SIGKILL left its temporary archive; its pid is gone.
  RemoveLeftoversOfGoneProcesses(target.parent_path().string(),
                                 absl::StrCat(".tmp.", target.filename().string(), "."));
  std::string temp = TempBeside(target);
  std::FILE* file = std::fopen(temp.c_str(), "wbx");
  if (file == nullptr) return Errno("cannot create", temp);
  PackStats stats;
  absl::Status status;
  {
    ZstdWriter out(file, archive_path);
    status = WriteEntries(root, top, *entries, out, stats);
    if (status.ok()) status = out.Finish();
  }
  if (std::fclose(file) != 0 && status.ok()) status = Errno("cannot write", archive_path);
  if (status.ok() && std::rename(temp.c_str(), target.c_str()) != 0) {
    status = Errno("cannot create", archive_path);
  }
  if (!status.ok()) {
    std::remove(temp.c_str());
    return status;
  }
  stats.archive_bytes = fs::file_size(target, ec);
  return stats;
}

absl::StatusOr<PackStats> UnpackBundle(const std::string& archive_path,
                                       const std::string& out_dir, const UnpackLimits& limits) {
  std::error_code ec;
  fs::path dest = fs::absolute(out_dir, ec).lexically_normal();
  if (!dest.has_filename()) dest = dest.parent_path();
  if (fs::exists(fs::symlink_status(dest, ec)) &&
      !(fs::is_directory(dest, ec) && fs::is_empty(dest, ec))) {
    return absl::AlreadyExistsError(absl::StrCat(out_dir, " exists; refusing to overwrite it"));
  }
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(archive_path.c_str(), "rb"),
                                                       std::fclose);
  if (!file) {
    return absl::NotFoundError(absl::StrCat("cannot open ", archive_path, ": ",
                                            std::strerror(errno)));
  }
  fs::create_directories(dest.parent_path(), ec);
  std::string temp = TempBeside(dest);
  if (!fs::create_directory(temp, ec)) return Errno("cannot create", temp);
  PackStats stats;
  ZstdReader in(file.get(), archive_path);
  absl::Status status = ExtractEntries(in, temp, limits, stats);
  if (status.ok()) {
    absl::StatusOr<LoadedBundle> loaded = LoadBundle(temp);
    if (!loaded.ok()) {
      status = absl::DataLossError(absl::StrCat(archive_path, ": does not hold a valid bundle: ",
                                                loaded.status().message()));
    }
  }
  if (status.ok()) {
    if (fs::exists(dest, ec)) fs::remove(dest, ec);  // the empty directory checked above
    if (std::rename(temp.c_str(), dest.c_str()) != 0) status = Errno("cannot create", out_dir);
  }
  if (!status.ok()) {
    fs::remove_all(temp, ec);
    return status;
  }
  stats.archive_bytes = fs::file_size(archive_path, ec);
  return stats;
}

}  // namespace rk::repro
