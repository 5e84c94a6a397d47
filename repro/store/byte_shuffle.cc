#include "repro/store/byte_shuffle.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace rk::repro {
namespace {

// Fixed element sizes let the compiler unroll the inner loop; they cover the
// dtypes the compiler has (2, 4 and 8 bytes).
template <size_t kSize>
void ShuffleFixed(const char* in, char* out, size_t elements) {
  for (size_t i = 0; i < elements; ++i) {
    for (size_t j = 0; j < kSize; ++j) out[j * elements + i] = in[i * kSize + j];
  }
}

template <size_t kSize>
void UnshuffleFixed(const char* in, char* out, size_t elements) {
  for (size_t i = 0; i < elements; ++i) {
    for (size_t j = 0; j < kSize; ++j) out[i * kSize + j] = in[j * elements + i];
  }
}

void ShuffleAny(const char* in, char* out, size_t elements, size_t size) {
  for (size_t i = 0; i < elements; ++i) {
    for (size_t j = 0; j < size; ++j) out[j * elements + i] = in[i * size + j];
  }
}

void UnshuffleAny(const char* in, char* out, size_t elements, size_t size) {
  for (size_t i = 0; i < elements; ++i) {
    for (size_t j = 0; j < size; ++j) out[i * size + j] = in[j * elements + i];
  }
}

}  // namespace

void ShuffleBlock(const char* in, char* out, size_t size, size_t element_size) {
  if (element_size <= 1) {
    std::memcpy(out, in, size);
    return;
  }
  size_t elements = size / element_size;
  switch (element_size) {
    case 2: ShuffleFixed<2>(in, out, elements); break;
    case 4: ShuffleFixed<4>(in, out, elements); break;
    case 8: ShuffleFixed<8>(in, out, elements); break;
    default: ShuffleAny(in, out, elements, element_size); break;
  }
  size_t whole = elements * element_size;
  std::memcpy(out + whole, in + whole, size - whole);
}

void UnshuffleBlock(const char* in, char* out, size_t size, size_t element_size) {
  if (element_size <= 1) {
    std::memcpy(out, in, size);
    return;
  }
  size_t elements = size / element_size;
  switch (element_size) {
    case 2: UnshuffleFixed<2>(in, out, elements); break;
    case 4: UnshuffleFixed<4>(in, out, elements); break;
    case 8: UnshuffleFixed<8>(in, out, elements); break;
    default: UnshuffleAny(in, out, elements, element_size); break;
  }
  size_t whole = elements * element_size;
  std::memcpy(out + whole, in + whole, size - whole);
}

void ShuffleBlocks(const char* in, char* out, size_t size, size_t element_size) {
  size_t block = ShuffleBlockBytes(element_size);
  for (size_t offset = 0; offset < size; offset += block) {
    ShuffleBlock(in + offset, out + offset, std::min(block, size - offset), element_size);
  }
}

void UnshuffleBlocks(const char* in, char* out, size_t size, size_t element_size) {
  size_t block = ShuffleBlockBytes(element_size);
  for (size_t offset = 0; offset < size; offset += block) {
    UnshuffleBlock(in + offset, out + offset, std::min(block, size - offset), element_size);
  }
}

}  // namespace rk::repro
