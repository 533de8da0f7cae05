// Attribute constructors and printing.
#include "graph/attribute.h"

#include <cstring>
#include <sstream>

#include "graph/graph.h"

namespace tessel::graph {

const char* attr_kind_name(AttrKind kind) {
  switch (kind) {
    case AttrKind::Int: return "int";
    case AttrKind::Float: return "float";
    case AttrKind::String: return "string";
    case AttrKind::Tensor: return "tensor";
    case AttrKind::Ints: return "ints";
    case AttrKind::Floats: return "floats";
    case AttrKind::Strings: return "strings";
    case AttrKind::Graph: return "graph";
  }
  return "?";
}

Attribute Attribute::of_int(int64_t v) {
  Attribute a;
  a.kind = AttrKind::Int;
  a.i = v;
  return a;
}

Attribute Attribute::of_float(double v) {
  Attribute a;
  a.kind = AttrKind::Float;
  a.f = v;
  return a;
}

Attribute Attribute::of_string(std::string v) {
  Attribute a;
  a.kind = AttrKind::String;
  a.s = std::move(v);
  return a;
}

Attribute Attribute::of_ints(std::vector<int64_t> v) {
  Attribute a;
  a.kind = AttrKind::Ints;
  a.ints = std::move(v);
  return a;
}

Attribute Attribute::of_floats(std::vector<double> v) {
  Attribute a;
  a.kind = AttrKind::Floats;
  a.floats = std::move(v);
  return a;
}

Attribute Attribute::of_strings(std::vector<std::string> v) {
  Attribute a;
  a.kind = AttrKind::Strings;
  a.strings = std::move(v);
  return a;
}

Attribute Attribute::of_tensor(std::shared_ptr<const runtime::NDArray> v) {
  Attribute a;
  a.kind = AttrKind::Tensor;
  a.tensor = std::move(v);
  return a;
}

Attribute Attribute::of_graph(std::shared_ptr<const Graph> v) {
  Attribute a;
  a.kind = AttrKind::Graph;
  a.graph = std::move(v);
  return a;
}

namespace {
template <class T>
std::string list_text(const std::vector<T>& items, bool quote = false) {
  std::ostringstream os;
  os << "[";
  for (size_t k = 0; k < items.size(); ++k) {
    if (k) os << ", ";
    if (quote) os << '"';
    os << items[k];
    if (quote) os << '"';
  }
  os << "]";
  return os.str();
}
}  // namespace

std::string Attribute::to_string() const {
  std::ostringstream os;
  switch (kind) {
    case AttrKind::Int: os << i; break;
    case AttrKind::Float: os << f; break;
    case AttrKind::String: os << '"' << s << '"'; break;
    case AttrKind::Ints: os << list_text(ints); break;
    case AttrKind::Floats: os << list_text(floats); break;
    case AttrKind::Strings: os << list_text(strings, true); break;
    case AttrKind::Tensor: {
      os << "tensor " << (tensor ? tensor->dtype().to_string() : "?") << "[";
      if (tensor)
        for (int d = 0; d < tensor->ndim(); ++d) os << (d ? ", " : "") << tensor->shape()[d];
      os << "]";
      break;
    }
    case AttrKind::Graph:
      os << "<graph " << (graph ? "'" + graph->name + "'" : "?") << ">";
      break;
  }
  return os.str();
}

bool same_data(const runtime::NDArray* a, const runtime::NDArray* b) {
  if (!a || !b) return a == b;
  return a->dtype() == b->dtype() && a->shape() == b->shape() &&
         std::memcmp(a->data(), b->data(), static_cast<size_t>(a->nbytes())) == 0;
}

bool same_attribute(const Attribute& a, const Attribute& b) {
  if (a.kind != b.kind || a.kind == AttrKind::Graph) return false;
  return a.i == b.i && a.f == b.f && a.s == b.s && a.ints == b.ints && a.floats == b.floats &&
         a.strings == b.strings && same_data(a.tensor.get(), b.tensor.get());
}

}  // namespace tessel::graph
