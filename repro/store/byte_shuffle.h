// Byte shuffle (as in blosc): within a block of N-byte elements, gather byte 0
// of every element, then byte 1, and so on. The exponent and high mantissa
// bytes of float tensors then sit next to each other, and zstd finds far more
// redundancy in them than in interleaved bytes.
//
// The store applies the shuffle block by block (ShuffleBlockBytes) so that a
// multi-GiB blob can be shuffled while it streams. Bytes after the last whole
// element of a block are copied unchanged.
//
// Tested by repro/store/byte_shuffle_test.cc.
#ifndef REPROKIT_REPRO_STORE_BYTE_SHUFFLE_H_
#define REPROKIT_REPRO_STORE_BYTE_SHUFFLE_H_

#include <cstddef>

namespace rk::repro {

// Target block size of the store's shuffle; the real block is the largest
// multiple of the element size not above it. Part of the object format.
inline constexpr size_t kShuffleTargetBlock = 256 * 1024;

inline size_t ShuffleBlockBytes(size_t element_size) {
  return element_size <= 1 ? kShuffleTargetBlock
                           : kShuffleTargetBlock / element_size * element_size;
}

// Shuffles `size` bytes from `in` to `out` (which must not overlap) as one
// block of `element_size`-byte elements.
void ShuffleBlock(const char* in, char* out, size_t size, size_t element_size);
void UnshuffleBlock(const char* in, char* out, size_t size, size_t element_size);

// Applies (Un)ShuffleBlock to consecutive ShuffleBlockBytes-sized blocks of
// `size` bytes; the last block may be shorter. `size` should be a whole number
// of blocks except at the end of the blob.
void ShuffleBlocks(const char* in, char* out, size_t size, size_t element_size);
void UnshuffleBlocks(const char* in, char* out, size_t size, size_t element_size);

}  // namespace rk::repro

#endif  // REPROKIT_REPRO_STORE_BYTE_SHUFFLE_H_
