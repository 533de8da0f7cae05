// to_string(Graph): a readable, stable listing of a graph.
//
//   graph main
//     input %x: float32[N, 3]
//     const %w: float32[3, 4]
//     %y = MatMul(%x, %w)
//     %z = Relu(%y) {alpha = 0.1}
//     output %z: float32[N, 4]
#include <sstream>

#include "graph/graph.h"

namespace tessel::graph {

namespace {
std::string ref(const Value* v) { return v ? "%" + v->name : "_"; }
}  // namespace

std::string to_string(const Graph& graph) {
  std::ostringstream os;
  os << "graph " << graph.name << "\n";
  for (const Value* in : graph.inputs())
    os << "  input " << ref(in) << ": " << in->type.to_string() << "\n";
  for (const auto& value : graph.values())
    if (value->is_constant())
      os << "  const " << ref(value.get()) << ": " << value->type.to_string() << "\n";
  for (const auto& node : graph.nodes()) {
    os << "  ";
    for (size_t k = 0; k < node->outputs.size(); ++k) os << (k ? ", " : "") << ref(node->outputs[k]);
    os << " = " << (node->domain.empty() ? "" : node->domain + ".") << node->op_type << "(";
    for (size_t k = 0; k < node->inputs.size(); ++k) os << (k ? ", " : "") << ref(node->inputs[k]);
    os << ")";
    if (!node->attributes.empty()) {
      os << " {";
      bool first = true;
      for (const auto& [attr_name, attr] : node->attributes) {
        os << (first ? "" : ", ") << attr_name << " = " << attr.to_string();
        first = false;
      }
      os << "}";
    }
    os << "\n";
  }
  for (const Value* out : graph.outputs())
    os << "  output " << ref(out) << ": " << out->type.to_string() << "\n";
  return os.str();
}

}  // namespace tessel::graph
