#include "compiler/ir/serialize.h"

#include <cereal/archives/portable_binary.hpp>

#include <exception>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "compiler/ir/verifier.h"

namespace rk::compiler {
namespace {

constexpr std::string_view kMagic = "RKG1";
constexpr uint64_t kMaxRank = 64;
constexpr int64_t kMaxElements = int64_t{1} << 40;

// Raised inside DeserializeGraph on malformed data; never escapes it.
struct FormatError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Writer {
 public:
  explicit Writer(cereal::PortableBinaryOutputArchive& ar) : ar_(ar) {}

  template <typename T>
  void Put(T value) {
    ar_(value);
  }
  void Count(size_t n) { Put<uint64_t>(n); }
  void String(std::string_view s) {
    Count(s.size());
    ar_(cereal::binary_data(s.data(), s.size()));
  }
  void Type(const TensorType& type) {
    Put<uint8_t>(static_cast<uint8_t>(type.dtype));
    Count(type.shape.rank());
    for (int64_t d : type.shape.dims()) Put<int64_t>(d);
  }
  void Attr(const AttrValue& value) {
    Put<uint8_t>(static_cast<uint8_t>(value.index()));
    std::visit(
        [this](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, double>) {
            Put<T>(v);
          } else if constexpr (std::is_same_v<T, bool>) {
            Put<uint8_t>(v ? 1 : 0);
          } else if constexpr (std::is_same_v<T, std::string>) {
            String(v);
          } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
            Count(v.size());
            for (int64_t x : v) Put<int64_t>(x);
          } else if constexpr (std::is_same_v<T, DType>) {
            Put<uint8_t>(static_cast<uint8_t>(v));
          } else {
            Type(v.type());
            auto bytes = v.bytes();
            Count(bytes.size());
            ar_(cereal::binary_data(bytes.data(), bytes.size()));
          }
        },
        value);
  }

 private:
  cereal::PortableBinaryOutputArchive& ar_;
};

class Reader {
 public:
  Reader(cereal::PortableBinaryInputArchive& ar, std::istream& in, int64_t total)
      : ar_(ar), in_(in), total_(total) {}

  template <typename T>
  T Get() {
    T value{};
    ar_(value);
    return value;
  }
  int64_t Remaining() const { return total_ - static_cast<int64_t>(in_.tellg()); }
  // A count of items of at least `item_bytes` each, bounded by what is left.
  uint64_t Count(int64_t item_bytes, const char* what) {
    uint64_t n = Get<uint64_t>();
    if (n > static_cast<uint64_t>(Remaining() / item_bytes)) {
      throw FormatError(absl::StrCat(what, " count ", n, " exceeds the data"));
    }
    return n;
  }
  std::string String(const char* what) {
    std::string s(Count(1, what), '\0');
    ar_(cereal::binary_data(s.data(), s.size()));
    return s;
  }
  DType ReadDType() {
    uint8_t d = Get<uint8_t>();
    if (d >= std::size(kAllDTypes)) throw FormatError(absl::StrCat("bad dtype code ", d));
    return static_cast<DType>(d);
  }
  TensorType Type() {
    DType dtype = ReadDType();
    uint64_t rank = Count(8, "rank");
    if (rank > kMaxRank) throw FormatError(absl::StrCat("rank ", rank, " too large"));
    std::vector<int64_t> dims;
    int64_t elements = 1;
    for (uint64_t i = 0; i < rank; ++i) {
      int64_t d = Get<int64_t>();
      if (d < 0 || d > kMaxElements || (d > 0 && elements > kMaxElements / d)) {
        throw FormatError(absl::StrCat("bad dimension ", d));
      }
      elements *= d;
      dims.push_back(d);
    }
    return TensorType(dtype, Shape(std::move(dims)));
  }
  AttrValue Attr() {
    switch (Get<uint8_t>()) {
      case 0: return Get<int64_t>();
      case 1: return Get<double>();
      case 2: {
        uint8_t b = Get<uint8_t>();
        if (b > 1) throw FormatError(absl::StrCat("bad bool ", b));
        return b == 1;
      }
      case 3: return String("string");
      case 4: {
        std::vector<int64_t> v(Count(8, "int list"));
        for (int64_t& x : v) x = Get<int64_t>();
        return v;
      }
      case 5: return ReadDType();
      case 6: {
        TensorType type = Type();
        uint64_t size = Count(1, "tensor bytes");
        if (static_cast<int64_t>(size) != type.byte_size()) {
          throw FormatError(absl::StrCat("tensor of ", type.ToString(), " has ", size, " bytes"));
        }
        HostTensor tensor(type);
        ar_(cereal::binary_data(tensor.raw_data(), size));
        return tensor;
      }
      default: throw FormatError("bad attribute kind");
    }
  }

 private:
  cereal::PortableBinaryInputArchive& ar_;
  std::istream& in_;
  int64_t total_;
};

Graph ReadGraph(Reader& r) {
  Graph graph(r.String("graph name"));
  uint64_t num_nodes = r.Count(4, "node");
  for (uint64_t i = 0; i < num_nodes; ++i) {
    Node node;
    uint16_t op = r.Get<uint16_t>();
    if (op >= std::size(kAllOps)) throw FormatError(absl::StrCat("bad op code ", op));
    node.op = static_cast<Op>(op);
    uint64_t num_operands = r.Count(4, "operand");
    for (uint64_t k = 0; k < num_operands; ++k) node.operands.emplace_back(r.Get<int32_t>());
    node.type = r.Type();
    node.name = r.String("name");
    uint64_t num_attrs = r.Count(2, "attribute");
    for (uint64_t k = 0; k < num_attrs; ++k) {
      std::string name = r.String("attribute name");
      if (node.attrs.Has(name)) throw FormatError(absl::StrCat("duplicate attribute ", name));
      node.attrs.Set(name, r.Attr());
    }
    graph.AppendNode(std::move(node));
  }
  uint64_t num_outputs = r.Count(4, "output");
  for (uint64_t k = 0; k < num_outputs; ++k) graph.AddOutput(NodeId(r.Get<int32_t>()));
  return graph;
}

}  // namespace

std::string SerializeGraph(const Graph& graph) {
  std::ostringstream out(std::ios::binary);
  out.write(kMagic.data(), kMagic.size());
  {
    cereal::PortableBinaryOutputArchive ar(out);
    Writer w(ar);
    w.Put<uint32_t>(kGraphFormatVersion);
    w.String(graph.name());
    w.Count(graph.num_nodes());
    for (const Node& node : graph.nodes()) {
      w.Put<uint16_t>(static_cast<uint16_t>(node.op));
      w.Count(node.operands.size());
      for (NodeId id : node.operands) w.Put<int32_t>(id.value);
      w.Type(node.type);
      w.String(node.name);
      w.Count(node.attrs.values().size());
      for (const auto& [name, value] : node.attrs.values()) {
        w.String(name);
        w.Attr(value);
      }
    }
    w.Count(graph.outputs().size());
    for (NodeId id : graph.outputs()) w.Put<int32_t>(id.value);
  }
  return std::move(out).str();
}

absl::StatusOr<Graph> DeserializeGraph(std::string_view bytes) {
  if (bytes.size() < kMagic.size() || bytes.substr(0, kMagic.size()) != kMagic) {
    return absl::InvalidArgumentError("not a serialized graph (missing the RKG1 magic)");
  }
  std::string body(bytes.substr(kMagic.size()));
  std::istringstream in(body, std::ios::binary);
  try {
    cereal::PortableBinaryInputArchive ar(in);
    Reader r(ar, in, static_cast<int64_t>(body.size()));
    uint32_t version = r.Get<uint32_t>();
    if (version != kGraphFormatVersion) {
      return absl::InvalidArgumentError(absl::StrCat("unsupported graph format version ", version,
                                                     " (this build reads version ",
                                                     kGraphFormatVersion, ")"));
    }
    Graph graph = ReadGraph(r);
    if (r.Remaining() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("corrupt serialized graph: ", r.Remaining(), " trailing bytes"));
    }
    if (absl::Status s = Verify(graph); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("serialized graph is invalid: ", s.message()));
    }
    return graph;
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("corrupt serialized graph: ", e.what()));
  } catch (...) {
    return absl::InvalidArgumentError("corrupt serialized graph");
  }
}

}  // namespace rk::compiler
