// Attribute: one named constant parameter of a graph node (an int, a float, a string, a
// tensor, a list of ints / floats / strings, or a graph: a control-flow body), as ONNX
// defines them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/ndarray.h"

namespace tessel::graph {

class Graph;

enum class AttrKind : uint8_t { Int, Float, String, Tensor, Ints, Floats, Strings, Graph };

/// "int", "float", "string", "tensor", "ints", "floats", "strings", "graph".
const char* attr_kind_name(AttrKind kind);

/// A node attribute. Only the field of its kind is meaningful.
struct Attribute {
  AttrKind kind = AttrKind::Int;
  int64_t i = 0;
  double f = 0;
  std::string s;
  std::shared_ptr<const runtime::NDArray> tensor;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<std::string> strings;
  /// A body of If, Loop or Scan (see Graph::captured_inputs).
  std::shared_ptr<const Graph> graph;

  static Attribute of_int(int64_t v);
  static Attribute of_float(double v);
  static Attribute of_string(std::string v);
  static Attribute of_ints(std::vector<int64_t> v);
  static Attribute of_floats(std::vector<double> v);
  static Attribute of_strings(std::vector<std::string> v);
  static Attribute of_tensor(std::shared_ptr<const runtime::NDArray> v);
  static Attribute of_graph(std::shared_ptr<const Graph> v);
  /// Readable text of the value, e.g. "[1, 2]" or "tensor float32[3]".
  std::string to_string() const;
};

/// Whether two arrays hold the same dtype, shape and bytes (both null counts as the same).
bool same_data(const runtime::NDArray* a, const runtime::NDArray* b);
/// Whether two attributes have the same kind and value (tensors compared byte by byte);
/// bodies (graphs) never compare equal.
bool same_attribute(const Attribute& a, const Attribute& b);

}  // namespace tessel::graph
