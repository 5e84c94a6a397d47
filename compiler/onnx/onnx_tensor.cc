#include "compiler/onnx/onnx_tensor.h"

#include <filesystem>
#include <fstream>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"

namespace rk::compiler::onnx_io {
namespace {

using onnx::TensorProto;

absl::Status CheckCount(const TensorProto& proto, const char* field, int64_t have, int64_t want) {
  if (have == want) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("tensor '", proto.name(), "': ", field, " has ",
                                                 have, " values, its shape needs ", want));
}

// The external-data file of `proto`, checked to stay inside `model_dir`.
absl::StatusOr<std::string> ReadExternal(const TensorProto& proto, const std::string& model_dir,
                                         int64_t want_bytes) {
  std::string location;
  int64_t offset = 0;
  int64_t length = -1;
  for (const onnx::StringStringEntryProto& entry : proto.external_data()) {
    if (entry.key() == "location") {
      location = entry.value();
    } else if (entry.key() == "offset" || entry.key() == "length") {
      int64_t value = 0;
      if (entry.value().empty() ||
          entry.value().find_first_not_of("0123456789") != std::string::npos ||
          entry.value().size() > 18) {
        return absl::InvalidArgumentError(absl::StrCat("tensor '", proto.name(), "': external ",
                                                       entry.key(), " '", entry.value(),
                                                       "' is not a non-negative integer"));
      }
      value = std::stoll(entry.value());
      (entry.key() == "offset" ? offset : length) = value;
    }
  }
  if (location.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensor '", proto.name(), "': external data without a location"));
  }
  const std::filesystem::path relative(location);
  if (relative.is_absolute()) {
    return absl::InvalidArgumentError(absl::StrCat("tensor '", proto.name(),
                                                   "': external data path '", location,
                                                   "' is absolute; it must be relative to the model"));
  }
  for (const auto& part : relative) {
    if (part == "..") {
      return absl::InvalidArgumentError(absl::StrCat(
          "tensor '", proto.name(), "': external data path '", location,
          "' leaves the model's directory"));
    }
  }
  const std::filesystem::path path = std::filesystem::path(model_dir) / relative;
  std::error_code ec;
  const uintmax_t file_size = std::filesystem::file_size(path, ec);
  if (ec) {
    return absl::InvalidArgumentError(absl::StrCat("tensor '", proto.name(),
                                                   "': cannot read external data '",
                                                   path.string(), "': ", ec.message()));
  }
  if (length < 0) length = want_bytes;
  if (length != want_bytes) {
    return absl::InvalidArgumentError(absl::StrCat("tensor '", proto.name(), "': external length ",
                                                   length, " bytes, its shape needs ", want_bytes));
  }
  if (static_cast<uintmax_t>(offset) > file_size ||
      static_cast<uintmax_t>(length) > file_size - offset) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tensor '", proto.name(), "': external data '", location, "' has ", file_size,
        " bytes, the tensor needs ", length, " at offset ", offset));
  }
  std::ifstream in(path, std::ios::binary);
  std::string bytes(static_cast<size_t>(length), '\0');
  in.seekg(offset);
  in.read(bytes.data(), length);
  if (!in) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensor '", proto.name(), "': reading '", path.string(), "' failed"));
  }
  return bytes;
}

}  // namespace

std::string OnnxTypeName(int32_t elem_type) {
  if (TensorProto::DataType_IsValid(elem_type)) {
    return TensorProto::DataType_Name(static_cast<TensorProto::DataType>(elem_type));
  }
  return absl::StrCat("type ", elem_type);
}

absl::StatusOr<DType> DTypeFromOnnx(int32_t elem_type) {
  switch (elem_type) {
    case TensorProto::FLOAT: return DType::kF32;
    case TensorProto::FLOAT16: return DType::kF16;
    case TensorProto::BFLOAT16: return DType::kBF16;
    case TensorProto::DOUBLE: return DType::kF64;
    case TensorProto::INT32: return DType::kI32;
    case TensorProto::INT64: return DType::kI64;
    case TensorProto::BOOL: return DType::kBool;
    default: break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat(OnnxTypeName(elem_type),
                   " is not a dtype reprokit represents (it has f16, bf16, f32, f64, i32, i64, "
                   "bool)"));
}

int32_t OnnxElemType(DType dtype) {
  switch (dtype) {
    case DType::kF16: return TensorProto::FLOAT16;
    case DType::kBF16: return TensorProto::BFLOAT16;
    case DType::kF32: return TensorProto::FLOAT;
    case DType::kF64: return TensorProto::DOUBLE;
    case DType::kI32: return TensorProto::INT32;
    case DType::kI64: return TensorProto::INT64;
    case DType::kBool: return TensorProto::BOOL;
  }
  return TensorProto::UNDEFINED;
}

absl::StatusOr<HostTensor> TensorFromProto(const TensorProto& proto, const std::string& model_dir) {
  absl::StatusOr<DType> dtype = DTypeFromOnnx(proto.data_type());
  if (!dtype.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensor '", proto.name(), "': ", dtype.status().message()));
  }
  std::vector<int64_t> dims(proto.dims().begin(), proto.dims().end());
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d < 0 || (d > 0 && count > (int64_t{1} << 40) / d)) {
      return absl::InvalidArgumentError(absl::StrCat("tensor '", proto.name(), "': shape [",
                                                     absl::StrJoin(dims, ","),
                                                     "] is negative or too large"));
    }
    count *= d;
  }
  const TensorType type(*dtype, Shape(std::move(dims)));
  const int64_t want_bytes = type.byte_size();
  if (proto.has_segment()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensor '", proto.name(), "': segmented tensors are not supported"));
  }
  auto from_bytes = [&](const std::string& bytes) -> absl::StatusOr<HostTensor> {
    if (static_cast<int64_t>(bytes.size()) != want_bytes) {
      return absl::InvalidArgumentError(absl::StrCat("tensor '", proto.name(), "': ",
                                                     bytes.size(), " bytes of data, ",
                                                     type.ToString(), " needs ", want_bytes));
    }
    absl::StatusOr<HostTensor> t = HostTensor::FromBytes(
        type, absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()),
                                        bytes.size()));
    if (t.ok() && *dtype == DType::kBool) {
      for (int64_t i = 0; i < count; ++i) t->data<uint8_t>()[i] = t->data<uint8_t>()[i] != 0;
    }
    return t;
  };
  if (proto.data_location() == TensorProto::EXTERNAL) {
    absl::StatusOr<std::string> bytes = ReadExternal(proto, model_dir, want_bytes);
    if (!bytes.ok()) return bytes.status();
    return from_bytes(*bytes);
  }
  if (proto.has_raw_data()) return from_bytes(proto.raw_data());

  // The typed fields: each element converted into the tensor's storage
  // (16-bit floats arrive as their bit patterns, bool as 0/1, in int32_data).
  HostTensor t(type);
  auto copy = [&](const char* field, const auto& values, auto store) -> absl::Status {
    RK_RETURN_IF_ERROR(CheckCount(proto, field, values.size(), count));
    for (int64_t i = 0; i < count; ++i) store(i, values.Get(static_cast<int>(i)));
    return absl::OkStatus();
  };
  absl::Status copied;
  switch (*dtype) {
    case DType::kF32:
      copied = copy("float_data", proto.float_data(), [&](int64_t i, float v) { t.data<float>()[i] = v; });
      break;
    case DType::kF64:
      copied = copy("double_data", proto.double_data(), [&](int64_t i, double v) { t.data<double>()[i] = v; });
      break;
    case DType::kI64:
      copied = copy("int64_data", proto.int64_data(), [&](int64_t i, int64_t v) { t.data<int64_t>()[i] = v; });
      break;
    case DType::kI32:
      copied = copy("int32_data", proto.int32_data(), [&](int64_t i, int32_t v) { t.data<int32_t>()[i] = v; });
      break;
    case DType::kF16:
    case DType::kBF16:
      copied = copy("int32_data", proto.int32_data(),
                    [&](int64_t i, int32_t v) { t.data<uint16_t>()[i] = static_cast<uint16_t>(v); });
      break;
    case DType::kBool:
      copied = copy("int32_data", proto.int32_data(), [&](int64_t i, int32_t v) { t.data<uint8_t>()[i] = v != 0; });
      break;
  }
  RK_RETURN_IF_ERROR(copied);
  return t;
}

TensorProto TensorToProto(const HostTensor& tensor, const std::string& name) {
  TensorProto proto;
  proto.set_name(name);
  proto.set_data_type(OnnxElemType(tensor.dtype()));
  for (int64_t d : tensor.shape().dims()) proto.add_dims(d);
  proto.set_raw_data(std::string(reinterpret_cast<const char*>(tensor.bytes().data()),
                                 tensor.bytes().size()));
  return proto;
}

}  // namespace rk::compiler::onnx_io
