#include "repro/bundle/bundle.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "base/leftovers.h"
#include "base/sha256.h"
#include "compiler/ir/canonical_hash.h"
#include "compiler/ir/dtype.h"
#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/seeded_inputs.h"
#include "compiler/ir/verifier.h"
#include "repro/bundle/bundle_json.h"
#include "repro/bundle/environment.h"
#include "repro/bundle/readme.h"
#include "repro/store/local_store.h"

namespace rk::repro {
namespace {

namespace fs = std::filesystem;
using compiler::HostTensor;
using compiler::TensorType;


absl::string_view BytesOf(const HostTensor& t) {
  return absl::string_view(static_cast<const char*>(t.raw_data()),
                           static_cast<size_t>(t.byte_size()));
}

// Puts large constants into the bundle's blob store while printing.
class StoreSink : public compiler::BlobSink {
 public:
  explicit StoreSink(Store& store) : store_(store) {}
  absl::StatusOr<std::string> Put(const HostTensor& tensor) override {
    PutOptions options;
    options.element_size = compiler::DTypeSize(tensor.dtype());
    absl::StatusOr<Digest> d = store_.Put(BytesOf(tensor), options);
    if (!d.ok()) return d.status();
    return d->Hex();
  }

 private:
  Store& store_;
};

// A blob from the bundle's own store, else from `fallback` (a shared store).
absl::StatusOr<std::string> GetBlob(Store& store, Store* fallback, const Digest& digest) {
  absl::StatusOr<std::string> bytes = store.Get(digest);
  if (fallback == nullptr || !absl::IsNotFound(bytes.status())) return bytes;
  return fallback->Get(digest);
}

// Resolves constant references from the bundle's blob store.
class StoreResolver : public compiler::BlobResolver {
 public:
  StoreResolver(Store& store, Store* fallback) : store_(store), fallback_(fallback) {}
  absl::StatusOr<HostTensor> Get(const std::string& hex, const TensorType& type) override {
    absl::StatusOr<Digest> digest = Digest::FromHex(hex);
    if (!digest.ok()) return digest.status();
    absl::StatusOr<std::string> bytes = GetBlob(store_, fallback_, *digest);
    if (!bytes.ok()) {
      return absl::Status(bytes.status().code(),
                          absl::StrCat("constant sha256:", hex, ": ", bytes.status().message()));
    }
    if (bytes->size() != static_cast<size_t>(type.byte_size())) {
      return absl::DataLossError(absl::StrCat("constant sha256:", hex, ": blob holds ",
                                              bytes->size(), " bytes, ", type.ToString(),
                                              " needs ", type.byte_size()));
    }
    return HostTensor::FromBytes(
        type, absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes->data()),
                                        bytes->size()));
  }

 private:
  Store& store_;
  Store* fallback_;
};

// Checks that the declared inputs are the graph's signature.
absl::Status CheckInputsMatchGraph(const compiler::Graph& graph,
                                   const std::vector<BundleInput>& inputs) {
  std::vector<compiler::NodeId> ids = graph.inputs();
  if (ids.size() != inputs.size()) {
    return absl::InvalidArgumentError(absl::StrCat("the graph has ", ids.size(),
                                                   " inputs but repro.json lists ",
                                                   inputs.size()));
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    std::string name = graph.DisplayName(ids[i]);
    const TensorType& type = graph.type(ids[i]);
    if (inputs[i].name != name) {
      return absl::InvalidArgumentError(absl::StrCat("input ", i, ": repro.json names it '",
                                                     inputs[i].name, "', the graph '%", name,
                                                     "'"));
    }
    if (inputs[i].type != type) {
      return absl::InvalidArgumentError(absl::StrCat("input %", name, ": repro.json says ",
                                                     inputs[i].type.ToString(),
                                                     ", the graph ", type.ToString()));
    }
  }
  return absl::OkStatus();
}

std::string TempSibling(const fs::path& dir, const std::string& what) {
  std::random_device rd;
  return (dir.parent_path() / absl::StrCat(".tmp.", dir.filename().string(), ".", what, ".",
                                           getpid(), ".", rd()))
      .string();
}

// What a writer of `dir` killed with SIGKILL left beside it: a staging
// directory (.tmp.<name>.new.<pid>.*), removed; or, killed between the two
// renames of Publish's fallback, the previous bundle moved aside
// (.tmp.<name>.old.<pid>.*) with nothing at `dir`, which is moved back.
void CleanUpAfterKilledWriters(const fs::path& dir) {
  const std::string parent = dir.parent_path().string();
  const std::string name = dir.filename().string();
  const std::string old_prefix = absl::StrCat(".tmp.", name, ".old.");
  std::error_code ec;
  if (!fs::exists(dir, ec)) {
    for (const fs::directory_entry& e : fs::directory_iterator(parent, ec)) {
      long pid = PidInLeftoverName(e.path().filename().string(), old_prefix);
      if (pid > 0 && ProcessIsGone(pid) && ::rename(e.path().c_str(), dir.c_str()) == 0) break;
    }
  }
  RemoveLeftoversOfGoneProcesses(parent, absl::StrCat(".tmp.", name, ".new."));
  RemoveLeftoversOfGoneProcesses(parent, old_prefix);
}

// Moves the finished bundle `temp` to `dir`. An existing bundle there is
// swapped out atomically where the kernel allows it.
absl::Status Publish(const fs::path& temp, const fs::path& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec) || fs::is_empty(dir, ec)) {
    if (fs::exists(dir, ec)) fs::remove(dir, ec);
    if (::rename(temp.c_str(), dir.c_str()) != 0) {
      return absl::InternalError(absl::StrCat("cannot move the bundle into ", dir.string(), ": ",
                                              std::strerror(errno)));
    }
    return absl::OkStatus();
  }
  if (::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, dir.c_str(), RENAME_EXCHANGE) == 0) {
    fs::remove_all(temp, ec);
    return absl::OkStatus();
  }
  fs::path old = TempSibling(dir, "old");
  if (::rename(dir.c_str(), old.c_str()) != 0 || ::rename(temp.c_str(), dir.c_str()) != 0) {
    return absl::InternalError(absl::StrCat("cannot replace the bundle ", dir.string(), ": ",
                                            std::strerror(errno)));
  }
  fs::remove_all(old, ec);
  return absl::OkStatus();
}

// Writes every file of the bundle into `temp`.
absl::Status WriteContents(const Bundle& in, const std::vector<HostTensor>& values,
                           const fs::path& temp) {
  LocalStoreOptions store_options;
  absl::StatusOr<std::unique_ptr<LocalStore>> store =
      LocalStore::Open((temp / kBundleBlobsDir).string(), store_options);
  if (!store.ok()) return store.status();

  StoreSink sink(**store);
  compiler::PrintOptions print_options;
  print_options.inline_limit = kBundleInlineLimit;
  print_options.sink = &sink;
  absl::StatusOr<std::string> text = compiler::Print(in.graph, print_options);
  if (!text.ok()) return text.status();
  if (absl::Status s = WriteStringToFile((temp / kBundleGraphFile).string(), *text); !s.ok()) return s;

  Bundle bundle = in;
  for (size_t i = 0; i < bundle.inputs.size(); ++i) {
    BundleInput& input = bundle.inputs[i];
    if (input.source != BundleInput::Source::kBlob) continue;
    PutOptions put_options;
    put_options.element_size = compiler::DTypeSize(input.type.dtype);
    absl::StatusOr<Digest> digest = (*store)->Put(BytesOf(values[i]), put_options);
    if (!digest.ok()) return digest.status();
    input.sha256 = *digest;
    input.byte_size = static_cast<uint64_t>(values[i].byte_size());
  }
  if (!bundle.provenance.Contains("created_at")) {
    return absl::InternalError("provenance.created_at must be set before writing");
  }
  std::string hash = BundleHash(bundle);
  std::string json = BundleToJson(bundle, hash).DumpPretty() + "\n";
  if (absl::Status s = WriteStringToFile((temp / kBundleJsonFile).string(), json); !s.ok()) return s;
  return WriteStringToFile((temp / kBundleReadmeFile).string(), RenderBundleReadme(bundle, hash));
}

absl::Status CheckValues(const Bundle& bundle, const std::vector<HostTensor>& values) {
  if (absl::Status s = CheckInputsMatchGraph(bundle.graph, bundle.inputs); !s.ok()) return s;
  if (values.size() != bundle.inputs.size()) {
    return absl::InvalidArgumentError(absl::StrCat(values.size(), " input values for ",
                                                   bundle.inputs.size(), " inputs"));
  }
  for (size_t i = 0; i < values.size(); ++i) {
    const BundleInput& input = bundle.inputs[i];
    if (!values[i].valid() || values[i].type() != input.type) {
      return absl::InvalidArgumentError(absl::StrCat("input %", input.name, ": value is ",
                                                     values[i].type().ToString(), ", expected ",
                                                     input.type.ToString()));
    }
    if (input.source == BundleInput::Source::kRandom &&
        !HostTensor::Random(input.type, input.seed, input.random).BitwiseEqual(values[i])) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input %", input.name, ": value differs from its random recipe (seed ", input.seed,
          "); store it as a blob instead"));
    }
  }
  return absl::OkStatus();
}

// The values of input `i`, verified; a missing blob becomes seeded data.
absl::StatusOr<HostTensor> LoadInput(Store& store, Store* fallback, const BundleInput& input,
                                     int index, std::vector<std::string>& warnings) {
  if (input.source == BundleInput::Source::kRandom) {
    return HostTensor::Random(input.type, input.seed, input.random);
  }
  absl::StatusOr<std::string> bytes = GetBlob(store, fallback, input.sha256);
  if (absl::IsNotFound(bytes.status())) {
    warnings.push_back(absl::StrCat("input %", input.name, ": blob ", input.sha256.Hex(),
                                    " is missing; using seeded random data instead (seed 0, "
                                    "position ",
                                    index, ")"));
    return HostTensor::Random(input.type, compiler::SeedForInput(0, index),
                              compiler::DefaultInputSpec(input.type.dtype));
  }
  if (!bytes.ok()) {
    return absl::Status(bytes.status().code(), absl::StrCat("input %", input.name, ": ",
                                                            bytes.status().message()));
  }
  if (bytes->size() != input.byte_size) {
    return absl::DataLossError(absl::StrCat("input %", input.name, ": blob ", input.sha256.Hex(),
                                            " holds ", bytes->size(), " bytes, expected ",
                                            input.byte_size, " for ", input.type.ToString()));
  }
  return HostTensor::FromBytes(
      input.type,
      absl::Span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size()));
}

}  // namespace

bool IsBundleDir(const std::string& dir) {
  absl::StatusOr<std::string> text = ReadFileToString((fs::path(dir) / kBundleJsonFile).string());
  if (!text.ok()) return false;
  absl::StatusOr<Json> json = ParseJson(*text);
  if (!json.ok()) return false;
  absl::StatusOr<std::string> format = json->GetString("format");
  return format.ok() && *format == kBundleFormat;
}

std::string BundleHash(const Bundle& bundle) {
  std::string text = "reprokit-bundle-hash 1\n";
  absl::StrAppend(&text, compiler::PrintCanonical(bundle.graph), "\noptions ",
                  bundle.options.ToString(), "\n");
  for (const BundleInput& input : bundle.inputs) {
    absl::StrAppend(&text, "input ", input.name, " ", input.type.ToString(), " ");
    if (input.source == BundleInput::Source::kBlob) {
      absl::StrAppend(&text, "sha256:", input.sha256.Hex(), "\n");
    } else {
      absl::StrAppend(&text, "random:", input.seed, ":",
                      input.random.distribution == compiler::RandomSpec::Distribution::kNormal
                          ? "normal"
                          : "uniform",
                      ":", Json(input.random.low).Dump(), ":", Json(input.random.high).Dump(),
                      "\n");
    }
  }
  return Sha256Hex(text);
}

absl::Status WriteBundle(const Bundle& bundle, const std::vector<HostTensor>& inputs,
                         const std::string& dir_text) {
  if (dir_text.empty()) return absl::InvalidArgumentError("empty bundle directory name");
  if (absl::Status s = compiler::Verify(bundle.graph); !s.ok()) return s;
  if (absl::Status s = CheckValues(bundle, inputs); !s.ok()) return s;

  std::error_code ec;
  fs::path dir = fs::absolute(fs::path(dir_text), ec).lexically_normal();
  if (dir.has_filename() == false) dir = dir.parent_path();
  CleanUpAfterKilledWriters(dir);
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec)) {
      return absl::FailedPreconditionError(
          absl::StrCat(dir_text, " exists and is not a directory"));
    }
    if (!fs::is_empty(dir, ec) && !IsBundleDir(dir.string())) {
      return absl::FailedPreconditionError(absl::StrCat(
          "refusing to overwrite ", dir_text, ": it is a non-empty directory, not a bundle"));
    }
  }
  fs::create_directories(dir.parent_path(), ec);
  if (ec) {
    return absl::InternalError(
        absl::StrCat("cannot create ", dir.parent_path().string(), ": ", ec.message()));
  }
  fs::path temp = TempSibling(dir, "new");
  if (!fs::create_directory(temp, ec)) {
    return absl::InternalError(absl::StrCat("cannot create ", temp.string(), ": ", ec.message()));
  }
  Bundle stamped = bundle;
  if (!stamped.provenance.is_object()) stamped.provenance = Json::MakeObject();
  if (!stamped.provenance.Contains("created_at")) {
    stamped.provenance.Set("created_at", UtcTimestamp());
  }
  absl::Status status = WriteContents(stamped, inputs, temp);
  if (status.ok()) status = Publish(temp, dir);
  if (!status.ok()) fs::remove_all(temp, ec);
  return status;
}

absl::StatusOr<LoadedBundle> LoadBundle(const std::string& dir_text, Store* fallback) {
  fs::path dir(dir_text);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return absl::NotFoundError(absl::StrCat(dir_text, ": no such bundle directory"));
  }
  fs::path json_path = dir / kBundleJsonFile;
  absl::StatusOr<std::string> json_text = ReadFileToString((json_path).string());
  if (!json_text.ok()) {
    return absl::NotFoundError(absl::StrCat(json_path.string(), ": missing (not a bundle?)"));
  }
  JsonParseOptions parse_options;
  parse_options.filename = json_path.string();
  absl::StatusOr<Json> json = ParseJson(*json_text, parse_options);
  if (!json.ok()) return json.status();
  LoadedBundle loaded;
  loaded.dir = dir_text;
  std::string recorded_hash;
  absl::StatusOr<Bundle> bundle = BundleFromJson(*json, json_path.string(), &recorded_hash);
  if (!bundle.ok()) return bundle.status();
  loaded.bundle = *std::move(bundle);

  absl::StatusOr<std::unique_ptr<LocalStore>> store =
      LocalStore::Open((dir / kBundleBlobsDir).string());
  if (!store.ok()) return store.status();
  fs::path graph_path = dir / kBundleGraphFile;
  if (!fs::exists(graph_path, ec)) {
    return absl::NotFoundError(absl::StrCat(graph_path.string(), ": missing"));
  }
  StoreResolver resolver(**store, fallback);
  absl::StatusOr<compiler::Graph> graph = compiler::ParseFile(graph_path.string(), &resolver);
  if (!graph.ok()) return graph.status();
  loaded.bundle.graph = *std::move(graph);
  if (absl::Status s = compiler::Verify(loaded.bundle.graph); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(graph_path.string(), ": ", s.message()));
  }
  if (absl::Status s = CheckInputsMatchGraph(loaded.bundle.graph, loaded.bundle.inputs); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(dir_text, ": ", s.message()));
  }
  for (size_t i = 0; i < loaded.bundle.inputs.size(); ++i) {
    absl::StatusOr<HostTensor> value =
        LoadInput(**store, fallback, loaded.bundle.inputs[i], static_cast<int>(i), loaded.warnings);
    if (!value.ok()) {
      return absl::Status(value.status().code(),
                          absl::StrCat(dir_text, ": ", value.status().message()));
    }
    loaded.inputs.push_back(*std::move(value));
  }
  loaded.hash = BundleHash(loaded.bundle);
  if (!recorded_hash.empty() && recorded_hash != loaded.hash) {
    loaded.warnings.push_back(absl::StrCat("the bundle was edited after it was written (hash ",
                                           loaded.hash, ", recorded ", recorded_hash, ")"));
  }
  return loaded;
}

bool MatchesExpected(const Bundle& bundle, const Signature& actual) {
  return MatchesExpected(bundle.expected.signature, bundle.precision_check_deferred, actual);
}

bool MatchesExpected(const Signature& expected, bool precision_check_deferred,
                     const Signature& actual) {
  if (actual == expected) return true;
  if (!precision_check_deferred) return false;
  std::optional<AccuracyDetail> want = ParseAccuracyDetail(expected);
  std::optional<AccuracyDetail> got = ParseAccuracyDetail(actual);
  return want.has_value() && got.has_value() && want->op == got->op &&
         want->dtype == got->dtype && want->gradient == got->gradient;
}

}  // namespace rk::repro
