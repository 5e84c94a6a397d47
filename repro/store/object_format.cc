#include "repro/store/object_format.h"

#include <errno.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "base/sha256.h"
#include "repro/store/byte_shuffle.h"

namespace rk::repro {
namespace {

constexpr char kMagic[4] = {'R', 'K', 'C', 'S'};
// Chunks are whole shuffle blocks so that chunked shuffling matches the format.
constexpr size_t kBlocksPerChunk = 16;

struct CCtxDeleter {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};
struct DCtxDeleter {
  void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
};

size_t ChunkBytes(int element_size) {
  return kBlocksPerChunk * ShuffleBlockBytes(element_size > 1 ? element_size : 1);
}

// Buffers are left uninitialized (every byte used is written first) and sized
// to the blob when it is smaller than a chunk: zero-filling megabytes for a
// 128-byte blob made small Puts and Gets cost milliseconds.
std::unique_ptr<char[]> Buffer(size_t size) { return std::unique_ptr<char[]>(new char[size]); }

// Fills `buffer` from `source` until full or the end of the source.
absl::StatusOr<size_t> FillFrom(ByteSource& source, char* buffer, size_t size) {
  size_t done = 0;
  while (done < size) {
    absl::StatusOr<size_t> n = source.Read(buffer + done, size - done);
    if (!n.ok()) return n.status();
    if (*n == 0) break;
    done += *n;
  }
  return done;
}

absl::Status ZstdError(size_t code, absl::string_view what, const std::string& path) {
  return absl::InternalError(absl::StrCat("zstd ", what, " for ", path, ": ", ZSTD_getErrorName(code)));
}

// Runs one compression step, writing whatever zstd produces; with
// ZSTD_e_end, loops until the frame is complete.
absl::Status CompressStep(ZSTD_CCtx* cctx, ZSTD_inBuffer& in, ZSTD_EndDirective mode, char* out_buf,
                          size_t out_cap, int fd, const std::string& path, uint64_t& written) {
  while (true) {
    ZSTD_outBuffer out{out_buf, out_cap, 0};
    size_t remaining = ZSTD_compressStream2(cctx, &out, &in, mode);
    if (ZSTD_isError(remaining)) return ZstdError(remaining, "compression", path);
    if (absl::Status s = WriteAll(fd, out_buf, out.pos, path); !s.ok()) return s;
    written += out.pos;
    bool done = mode == ZSTD_e_end ? remaining == 0 : in.pos == in.size;
    if (done) return absl::OkStatus();
  }
}

}  // namespace

bool ZstdHasWorkers() {
  static const bool has_workers = [] {
    std::unique_ptr<ZSTD_CCtx, CCtxDeleter> cctx(ZSTD_createCCtx());
    return cctx != nullptr && !ZSTD_isError(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_nbWorkers, 1));
  }();
  return has_workers;
}

std::string EncodeObjectHeader(const ObjectHeader& header) {
  std::string out(kObjectHeaderBytes, '\0');
  std::memcpy(out.data(), kMagic, 4);
  out[4] = static_cast<char>(header.version);
  out[5] = static_cast<char>(header.codec);
  out[6] = static_cast<char>(header.flags);
  out[7] = static_cast<char>(header.element_size);
  for (int i = 0; i < 8; ++i) out[8 + i] = static_cast<char>(header.raw_size >> (8 * i) & 0xff);
  return out;
}

absl::StatusOr<ObjectHeader> DecodeObjectHeader(absl::string_view bytes) {
  if (bytes.size() < kObjectHeaderBytes) {
    return absl::DataLossError(absl::StrCat("object header truncated (", bytes.size(), " of ",
                                            kObjectHeaderBytes, " bytes)"));
  }
  if (std::memcmp(bytes.data(), kMagic, 4) != 0) {
    return absl::DataLossError("not a reprokit store object (bad magic)");
  }
  ObjectHeader header;
  header.version = static_cast<uint8_t>(bytes[4]);
  header.codec = static_cast<uint8_t>(bytes[5]);
  header.flags = static_cast<uint8_t>(bytes[6]);
  header.element_size = static_cast<uint8_t>(bytes[7]);
  for (int i = 0; i < 8; ++i) {
    header.raw_size |= static_cast<uint64_t>(static_cast<uint8_t>(bytes[8 + i])) << (8 * i);
  }
  if (header.version != kObjectFormatVersion) {
    return absl::DataLossError(absl::StrCat("object format version ", header.version,
                                            " is not supported (this build reads version ",
                                            kObjectFormatVersion, ")"));
  }
  if (header.codec != kCodecZstd) {
    return absl::DataLossError(absl::StrCat("unknown codec ", header.codec));
  }
  if ((header.flags & ~kFlagShuffled) != 0 || (header.shuffled() && header.element_size < 2)) {
    return absl::DataLossError(absl::StrCat("invalid flags ", header.flags, " / element size ",
                                            header.element_size));
  }
  return header;
}

absl::StatusOr<WrittenObject> WriteObject(ByteSource& source, int fd, const std::string& path,
                                          int element_size, const CompressionOptions& options,
                                          bool hash) {
  bool shuffle = element_size > 1;
  if (element_size < 0 || element_size > 255) {
    return absl::InvalidArgumentError(absl::StrCat("element size ", element_size, " not in 0..255"));
  }
  // With a size hint below a chunk, one byte more than the hint: the first
  // fill then holds the whole blob and sees its end, as a full chunk would
  // (a longer source breaks the hint, which zstd's pledged size rejects).
  std::optional<uint64_t> size_hint = source.SizeHint();
  const size_t chunk = size_hint.has_value() && *size_hint < ChunkBytes(element_size)
                           ? static_cast<size_t>(*size_hint) + 1
                           : ChunkBytes(element_size);
  std::unique_ptr<char[]> raw = Buffer(chunk);
  std::unique_ptr<char[]> shuffled = shuffle ? Buffer(chunk) : nullptr;
  const size_t out_cap = std::min(ZSTD_CStreamOutSize() * 4, ZSTD_compressBound(chunk) + 64);
  std::unique_ptr<char[]> out_buf = Buffer(out_cap);

  ObjectHeader header;
  header.flags = shuffle ? kFlagShuffled : 0;
  header.element_size = shuffle ? static_cast<uint8_t>(element_size) : 0;
  std::string placeholder = EncodeObjectHeader(header);
  if (absl::Status s = WriteAll(fd, placeholder.data(), placeholder.size(), path); !s.ok()) {
    return s;
  }

  // The first chunk decides whether the blob is large enough for workers.
  absl::StatusOr<size_t> n = FillFrom(source, raw.get(), chunk);
  if (!n.ok()) return n.status();
  std::optional<uint64_t> hint = source.SizeHint();
  uint64_t expected_size = hint.value_or(*n);
  std::unique_ptr<ZSTD_CCtx, CCtxDeleter> cctx(ZSTD_createCCtx());
  if (cctx == nullptr) return absl::ResourceExhaustedError("zstd: cannot allocate a context");
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, options.level);
  if (options.workers > 0 && std::max<uint64_t>(expected_size, *n) >= options.multithread_min_bytes) {
    // Fails harmlessly (single-threaded) on a zstd built without threads.
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_nbWorkers, options.workers);
  }
  if (hint.has_value()) ZSTD_CCtx_setPledgedSrcSize(cctx.get(), *hint);

  Sha256Hasher hasher;
  WrittenObject result;
  result.stored_size = kObjectHeaderBytes;
  while (true) {
    if (hash) hasher.Update(raw.get(), *n);
    const char* input = raw.get();
    if (shuffle) {
      ShuffleBlocks(raw.get(), shuffled.get(), *n, element_size);
      input = shuffled.get();
    }
    result.raw_size += *n;
    ZSTD_inBuffer in{input, *n, 0};
    bool last = *n < chunk;
    absl::Status s = CompressStep(cctx.get(), in, last ? ZSTD_e_end : ZSTD_e_continue,
                                  out_buf.get(), out_cap, fd, path, result.stored_size);
    if (!s.ok()) return s;
    if (last) break;
    n = FillFrom(source, raw.get(), chunk);
    if (!n.ok()) return n.status();
  }

  header.raw_size = result.raw_size;
  std::string final_header = EncodeObjectHeader(header);
  if (::pwrite(fd, final_header.data(), final_header.size(), 0) !=
      static_cast<ssize_t>(final_header.size())) {
    return ErrnoStatus(errno, "writing header of", path);
  }
  if (hash) result.digest = hasher.Finish();
  return result;
}

namespace {

// Decompresses the frame after the header, unshuffling whole chunks and
// hashing them on their way to the sink.
class ObjectDecoder {
 public:
  ObjectDecoder(int fd, const std::string& path, const ObjectHeader& header, ByteSink& sink)
      : fd_(fd), path_(path), header_(header), sink_(sink),
        chunk_(std::max<uint64_t>(
            1, std::min<uint64_t>(header.raw_size,
                                  ChunkBytes(header.shuffled() ? header.element_size : 1)))),
        out_(Buffer(chunk_)),
        unshuffled_(header.shuffled() ? Buffer(chunk_) : nullptr) {}

  // DataLoss reasons come back without the digest and path; the caller adds them.
  absl::Status Run() {
    std::unique_ptr<ZSTD_DCtx, DCtxDeleter> dctx(ZSTD_createDCtx());
    if (dctx == nullptr) return absl::ResourceExhaustedError("zstd: cannot allocate a context");
    const size_t in_cap =
        std::min<size_t>(ZSTD_DStreamInSize(), ZSTD_compressBound(chunk_) + 64);
    std::unique_ptr<char[]> in_buf = Buffer(in_cap);
    ZSTD_inBuffer in{in_buf.get(), 0, 0};
    bool output_was_full = false;
    while (true) {
      if (in.pos == in.size && !output_was_full) {
        absl::StatusOr<size_t> n = ReadFull(fd_, in_buf.get(), in_cap, path_);
        if (!n.ok()) return n.status();
        if (*n == 0) return absl::DataLossError("truncated: the zstd frame ends early");
        in = ZSTD_inBuffer{in_buf.get(), *n, 0};
      }
      ZSTD_outBuffer out{out_.get() + fill_, chunk_ - fill_, 0};
      size_t ret = ZSTD_decompressStream(dctx.get(), &out, &in);
      if (ZSTD_isError(ret)) {
        return absl::DataLossError(absl::StrCat("corrupt zstd frame: ", ZSTD_getErrorName(ret)));
      }
      fill_ += out.pos;
      output_was_full = out.pos == out.size;
      if (fill_ == chunk_) {
        if (absl::Status s = Flush(); !s.ok()) return s;
      }
      if (ret == 0) break;
    }
    if (absl::Status s = Flush(); !s.ok()) return s;
    char extra;
    absl::StatusOr<size_t> more = ReadFull(fd_, &extra, 1, path_);
    if (!more.ok()) return more.status();
    if (in.pos != in.size || *more != 0) {
      return absl::DataLossError("trailing bytes after the zstd frame");
    }
    if (total_ != header_.raw_size) {
      return absl::DataLossError(absl::StrCat("decompressed to ", total_, " bytes, header says ",
                                              header_.raw_size));
    }
    return absl::OkStatus();
  }

  Digest Finish() { return hasher_.Finish(); }

 private:
  absl::Status Flush() {
    if (fill_ == 0) return absl::OkStatus();
    total_ += fill_;
    if (total_ > header_.raw_size) {
      return absl::DataLossError(absl::StrCat("decompresses to more than the ", header_.raw_size,
                                              " bytes the header says"));
    }
    const char* raw = out_.get();
    if (header_.shuffled()) {
      UnshuffleBlocks(out_.get(), unshuffled_.get(), fill_, header_.element_size);
      raw = unshuffled_.get();
    }
    hasher_.Update(raw, fill_);
    absl::Status s = sink_.Write(absl::string_view(raw, fill_));
    fill_ = 0;
    return s;
  }

  int fd_;
  const std::string& path_;
  ObjectHeader header_;
  ByteSink& sink_;
  const size_t chunk_;
  std::unique_ptr<char[]> out_;
  std::unique_ptr<char[]> unshuffled_;
  size_t fill_ = 0;
  uint64_t total_ = 0;
  Sha256Hasher hasher_;
};

}  // namespace

absl::Status ReadObject(int fd, const std::string& path, const Digest& expected, ByteSink& sink,
                        ObjectHeader* header_out) {
  auto data_loss = [&](absl::string_view reason) {
    return absl::DataLossError(
        absl::StrCat("object ", expected.Hex(), " at ", path, " is corrupt: ", reason));
  };
  char header_bytes[kObjectHeaderBytes];
  absl::StatusOr<size_t> n = ReadFull(fd, header_bytes, kObjectHeaderBytes, path);
  if (!n.ok()) return n.status();
  absl::StatusOr<ObjectHeader> header = DecodeObjectHeader(absl::string_view(header_bytes, *n));
  if (!header.ok()) return data_loss(header.status().message());
  if (header_out != nullptr) *header_out = *header;
  ObjectDecoder decoder(fd, path, *header, sink);
  absl::Status status = decoder.Run();
  if (absl::IsDataLoss(status)) return data_loss(status.message());
  if (!status.ok()) return status;
  Digest actual = decoder.Finish();
  if (actual != expected) return data_loss(absl::StrCat("content hashes to ", actual.Hex()));
  return absl::OkStatus();
}

}  // namespace rk::repro
