#include "tools/input_files.h"

#include <cstdint>
#include <cstring>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "base/file_util.h"
#include "compiler/onnx/onnx_tensor.h"
#include "onnx/onnx_pb.h"

namespace rk::tools {
namespace {

using compiler::DType;
using compiler::HostTensor;
using compiler::TensorType;

absl::Status Bad(const std::string& file, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat(file, ": ", why));
}

std::optional<DType> NpyDType(absl::string_view descr) {
  // '=' is native order, little-endian on every machine reprokit runs on.
  if (descr == "<f2" || descr == "=f2") return DType::kF16;
  if (descr == "<f4" || descr == "=f4") return DType::kF32;
  if (descr == "<f8" || descr == "=f8") return DType::kF64;
  if (descr == "<i4" || descr == "=i4") return DType::kI32;
  if (descr == "<i8" || descr == "=i8") return DType::kI64;
  if (descr == "|b1") return DType::kBool;
  return std::nullopt;
}

// The value of `key` in a NumPy header dict ("{'descr': '<f4', ...}").
std::optional<absl::string_view> HeaderValue(absl::string_view header, absl::string_view key) {
  const std::string quoted = absl::StrCat("'", key, "':");
  const size_t at = header.find(quoted);
  if (at == absl::string_view::npos) return std::nullopt;
  absl::string_view rest = absl::StripLeadingAsciiWhitespace(header.substr(at + quoted.size()));
  if (absl::StartsWith(rest, "'")) {
    const size_t end = rest.find('\'', 1);
    if (end == absl::string_view::npos) return std::nullopt;
    return rest.substr(1, end - 1);
  }
  if (absl::StartsWith(rest, "(")) {
    const size_t end = rest.find(')');
    if (end == absl::string_view::npos) return std::nullopt;
    return rest.substr(1, end - 1);
  }
  const size_t end = rest.find_first_of(",}");
  return absl::StripAsciiWhitespace(rest.substr(0, end));
}

absl::StatusOr<HostTensor> ReadNpy(const std::string& file, const std::string& bytes) {
  constexpr char kMagic[] = "\x93NUMPY";
  if (bytes.size() < 10 || bytes.compare(0, 6, kMagic, 6) != 0) {
    return Bad(file, "not a NumPy .npy file (no \\x93NUMPY magic)");
  }
  const int major = static_cast<uint8_t>(bytes[6]);
  size_t header_len = 0, header_at = 0;
  if (major == 1) {
    header_len = static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
    header_at = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return Bad(file, "truncated .npy header");
    for (int k = 0; k < 4; ++k) header_len |= static_cast<size_t>(static_cast<uint8_t>(bytes[8 + k])) << (8 * k);
    header_at = 12;
  } else {
    return Bad(file, absl::StrCat(".npy format version ", major, " is not supported (1 to 3)"));
  }
  if (header_at + header_len > bytes.size()) return Bad(file, "truncated .npy header");
  const absl::string_view header(bytes.data() + header_at, header_len);
  const std::optional<absl::string_view> descr = HeaderValue(header, "descr");
  const std::optional<absl::string_view> fortran = HeaderValue(header, "fortran_order");
  const std::optional<absl::string_view> shape_text = HeaderValue(header, "shape");
  if (!descr || !fortran || !shape_text) {
    return Bad(file, "the .npy header lacks descr, fortran_order or shape");
  }
  if (*fortran != "False") return Bad(file, "a Fortran-order array (save it in C order)");
  const std::optional<DType> dtype = NpyDType(*descr);
  if (!dtype) {
    return Bad(file, absl::StrCat("NumPy dtype '", *descr,
                                  "' is not one reprokit has (f2, f4, f8, i4, i8, b1, little-endian)"));
  }
  std::vector<int64_t> dims;
  for (absl::string_view part : absl::StrSplit(*shape_text, ',')) {
    part = absl::StripAsciiWhitespace(part);
    if (part.empty()) continue;
    int64_t d = 0;
    if (!absl::SimpleAtoi(part, &d) || d < 0) return Bad(file, absl::StrCat("bad shape (", *shape_text, ")"));
    dims.push_back(d);
  }
  const TensorType type(*dtype, compiler::Shape(dims));
  const size_t data_at = header_at + header_len;
  if (bytes.size() - data_at != static_cast<size_t>(type.byte_size())) {
    return Bad(file, absl::StrCat(bytes.size() - data_at, " data bytes for ", type.ToString(),
                                  ", which needs ", type.byte_size()));
  }
  return HostTensor::FromBytes(
      type, absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()) + data_at,
                                      bytes.size() - data_at));
}

absl::StatusOr<HostTensor> ReadTensorProto(const std::string& file, const std::string& bytes) {
  onnx::TensorProto proto;
  if (!proto.ParseFromString(bytes)) return Bad(file, "not an ONNX TensorProto (does not parse)");
  std::string dir = file.substr(0, file.find_last_of('/') == std::string::npos ? 0 : file.find_last_of('/'));
  if (dir.empty()) dir = ".";
  absl::StatusOr<HostTensor> t = compiler::onnx_io::TensorFromProto(proto, dir);
  if (!t.ok()) return Bad(file, std::string(t.status().message()));
  return t;
}

}  // namespace

absl::StatusOr<std::vector<HostTensor>> ReadInputFiles(const compiler::Graph& graph,
                                                       const std::vector<std::string>& files) {
  const std::vector<compiler::NodeId> ids = graph.inputs();
  if (files.size() != ids.size()) {
    return absl::InvalidArgumentError(absl::StrCat("--inputs: the graph has ", ids.size(),
                                                   " inputs, ", files.size(), " files given"));
  }
  std::vector<HostTensor> out;
  for (size_t i = 0; i < ids.size(); ++i) {
    const std::string& file = files[i];
    absl::StatusOr<std::string> bytes = ReadFileToString(file);
    // Whatever stops the read (missing, a directory, permissions), it is bad input.
    if (!bytes.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--inputs: ", bytes.status().message()));
    }
    const TensorType& type = graph.type(ids[i]);
    const std::string name = absl::StrCat("input %", graph.DisplayName(ids[i]));
    if (absl::EndsWith(file, ".npy") || absl::EndsWith(file, ".pb")) {
      absl::StatusOr<HostTensor> t =
          absl::EndsWith(file, ".npy") ? ReadNpy(file, *bytes) : ReadTensorProto(file, *bytes);
      if (!t.ok()) return t.status();
      if (t->type() != type) {
        return Bad(file, absl::StrCat("holds ", t->type().ToString(), ", but ", name, " is ",
                                      type.ToString()));
      }
      out.push_back(*std::move(t));
      continue;
    }
    if (bytes->size() != static_cast<size_t>(type.byte_size())) {
      return Bad(file, absl::StrCat(bytes->size(), " bytes, but ", name, " (", type.ToString(),
                                    ") needs ", type.byte_size()));
    }
    absl::StatusOr<HostTensor> t = HostTensor::FromBytes(
        type, absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes->data()),
                                        bytes->size()));
    if (!t.ok()) return t.status();
    out.push_back(*std::move(t));
  }
  return out;
}

}  // namespace rk::tools
