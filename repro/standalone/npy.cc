#include "repro/standalone/npy.h"

#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace rk::repro {

using compiler::DType;
using compiler::HostTensor;

std::string NpyBytes(const HostTensor& in) {
  const HostTensor t = in.dtype() == DType::kBF16 ? in.ConvertTo(DType::kF32) : in.Clone();
  const char* descr = "<f4";
  switch (t.dtype()) {
    case DType::kF16: descr = "<f2"; break;
    case DType::kBF16:
    case DType::kF32: descr = "<f4"; break;
    case DType::kF64: descr = "<f8"; break;
    case DType::kI32: descr = "<i4"; break;
    case DType::kI64: descr = "<i8"; break;
    case DType::kBool: descr = "|b1"; break;
  }
  std::string shape = absl::StrJoin(t.shape().dims(), ", ");
  if (t.shape().rank() == 1) shape += ",";  // "(4,)": a one-element tuple
  std::string header =
      absl::StrCat("{'descr': '", descr, "', 'fortran_order': False, 'shape': (", shape, "), }");
  // Magic (6) + version (2) + length (2) + header, padded with spaces to a
  // multiple of 64 and ended by a newline.
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>(header.size() >> 8));
  out += header;
  absl::Span<const uint8_t> bytes = t.bytes();
  out.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return out;
}

absl::Status WriteNpy(const HostTensor& tensor, const std::string& path) {
  std::ofstream f(path, std::ios::binary);
  const std::string bytes = NpyBytes(tensor);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  f.close();
  if (!f) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

}  // namespace rk::repro
