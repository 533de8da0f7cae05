// OpContext: attribute lookup with schema defaults, input queries, error reporting.
#include "ops/op_context.h"

#include <cmath>

#include "ops/op_def.h"
#include "support/error.h"

namespace tessel::ops {

OpContext::OpContext(const graph::Node& node, const OpDef& def,
                     std::vector<graph::TensorType> input_types,
                     std::vector<const runtime::NDArray*> input_values, const BodyTyper* body_typer)
    : node_(node),
      def_(def),
      input_types_(std::move(input_types)),
      input_values_(std::move(input_values)),
      body_typer_(body_typer) {
  TESSEL_ICHECK(
      input_types_.size() == node.inputs.size() && input_values_.size() == node.inputs.size(),
      "OpContext for ", node.describe(), ": ", input_types_.size(), " types and ",
      input_values_.size(), " values for ", node.inputs.size(), " inputs");
}

bool OpContext::has_input(size_t i) const {
  return i < node_.inputs.size() && node_.inputs[i] != nullptr;
}

const graph::TensorType& OpContext::input_type(size_t i) const {
  if (!has_input(i)) fail("input " + std::to_string(i) + " is required but not given");
  return input_types_[i];
}

std::vector<int64_t> OpContext::input_shape(size_t i) const {
  const graph::TensorType& type = input_type(i);
  if (!type.has_static_shape())
    fail("input " + std::to_string(i) + " has the non-static shape " + type.to_string());
  return type.shape();
}

const runtime::NDArray* OpContext::input_value(size_t i) const {
  return has_input(i) ? input_values_[i] : nullptr;
}

namespace {
template <class T>
std::vector<T> convert_values(const runtime::NDArray& array) {
  std::vector<T> result(static_cast<size_t>(array.size()));
  const void* data = array.data();
  auto dtype = array.dtype();
  for (size_t k = 0; k < result.size(); ++k) {
    double v = 0;
    switch (dtype.code) {
      case runtime::DTypeCode::Float:
        if (dtype.bits == 32)
          v = static_cast<const float*>(data)[k];
        else if (dtype.bits == 64)
          v = static_cast<const double*>(data)[k];
        else
          TESSEL_USER_ERROR("cannot read a ", dtype.to_string(), " value at compile time");
        break;
      case runtime::DTypeCode::Int:
        switch (dtype.bits) {
          case 8:
            v = static_cast<const int8_t*>(data)[k];
            break;
          case 16:
            v = static_cast<const int16_t*>(data)[k];
            break;
          case 32:
            v = static_cast<const int32_t*>(data)[k];
            break;
          default: {
            int64_t x = static_cast<const int64_t*>(data)[k];
            if constexpr (std::is_integral_v<T>) {
              result[k] = static_cast<T>(x);
              continue;
            }
            v = static_cast<double>(x);
          }
        }
        break;
      case runtime::DTypeCode::UInt:
        switch (dtype.bits) {
          case 1:
          case 8:
            v = static_cast<const uint8_t*>(data)[k];
            break;
          case 16:
            v = static_cast<const uint16_t*>(data)[k];
            break;
          case 32:
            v = static_cast<const uint32_t*>(data)[k];
            break;
          default:
            v = static_cast<double>(static_cast<const uint64_t*>(data)[k]);
        }
        break;
      case runtime::DTypeCode::BFloat:
      case runtime::DTypeCode::String:
        TESSEL_USER_ERROR("cannot read a ", dtype.to_string(), " value at compile time");
    }
    if constexpr (std::is_integral_v<T>) {
      if (!std::isfinite(v)) TESSEL_USER_ERROR("value ", v, " is not a finite integer");
    }
    result[k] = static_cast<T>(v);
  }
  return result;
}
}  // namespace

std::vector<int64_t> OpContext::input_ints(size_t i) const {
  const runtime::NDArray* value = input_value(i);
  if (!value)
    fail("the value of input " + std::to_string(i) +
         (has_input(i) ? " '" + node_.inputs[i]->name + "'" : std::string()) +
         " must be known at compile time");
  try {
    return convert_values<int64_t>(*value);
  } catch (const CompileError& e) {
    fail("input " + std::to_string(i) + ": " + e.what());
  }
}

std::vector<double> OpContext::input_floats(size_t i) const {
  const runtime::NDArray* value = input_value(i);
  if (!value) fail("the value of input " + std::to_string(i) + " must be known at compile time");
  try {
    return convert_values<double>(*value);
  } catch (const CompileError& e) {
    fail("input " + std::to_string(i) + ": " + e.what());
  }
}

bool OpContext::has_attr(const std::string& name) const {
  return node_.attribute(name) != nullptr;
}

const graph::Attribute& OpContext::attr(const std::string& name, graph::AttrKind kind) const {
  const graph::Attribute* found = node_.attribute(name);
  if (!found) {
    for (const AttrSpec& spec : def_.attributes)
      if (spec.name == name && spec.default_value) return *spec.default_value;
    fail("attribute '" + name + "' is required but not given");
  }
  if (found->kind != kind)
    fail("attribute '" + name + "' must be of type " + graph::attr_kind_name(kind) + ", found " +
         graph::attr_kind_name(found->kind));
  return *found;
}

int64_t OpContext::attr_int(const std::string& name) const {
  return attr(name, graph::AttrKind::Int).i;
}
double OpContext::attr_float(const std::string& name) const {
  return attr(name, graph::AttrKind::Float).f;
}
std::string OpContext::attr_string(const std::string& name) const {
  return attr(name, graph::AttrKind::String).s;
}
std::vector<int64_t> OpContext::attr_ints(const std::string& name) const {
  return attr(name, graph::AttrKind::Ints).ints;
}
std::vector<double> OpContext::attr_floats(const std::string& name) const {
  return attr(name, graph::AttrKind::Floats).floats;
}
std::vector<std::string> OpContext::attr_strings(const std::string& name) const {
  return attr(name, graph::AttrKind::Strings).strings;
}
const runtime::NDArray& OpContext::attr_tensor(const std::string& name) const {
  const graph::Attribute& a = attr(name, graph::AttrKind::Tensor);
  if (!a.tensor) fail("attribute '" + name + "' has no tensor data");
  return *a.tensor;
}

const graph::Graph& OpContext::attr_graph(const std::string& name) const {
  const graph::Attribute& a = attr(name, graph::AttrKind::Graph);
  if (!a.graph) fail("attribute '" + name + "' has no graph");
  return *a.graph;
}

std::vector<graph::TensorType> OpContext::body_output_types(
    const graph::Graph& body, const std::vector<graph::TensorType>& input_types,
    const std::vector<const runtime::NDArray*>& input_values) const {
  if (!body_typer_)
    fail("its bodies are typed by the compiler's graph passes; it cannot be compiled alone");
  return (*body_typer_)(body, input_types, input_values);
}

void OpContext::fail(const std::string& message) const {
  TESSEL_USER_ERROR(node_.describe(), ", opset ", node_.opset, ": ", message);
}

const schedules::KnobValues& OpContext::knobs() const {
  static const schedules::KnobValues defaults;
  return knobs_ ? *knobs_ : defaults;
}

const target::Target& OpContext::target() const {
  TESSEL_ICHECK(target_ != nullptr, node_.describe(),
                ": its schedule asked for the target, but the compiler gave the context none");
  return *target_;
}

}  // namespace tessel::ops
