// compile_node / run_node: one graph node -> registry entry -> TE -> schedule -> JIT kernel.
#include "executor/node_kernel.h"

#include <cstring>
#include <sstream>

#include "ops/op_util.h"
#include "ops/registry.h"
#include "ops/unsupported.h"
#include "runtime/data_dependent.h"
#include "runtime/error.h"
#include "schedules/cpu/generic.h"
#include "support/error.h"
#include "te/compute.h"

namespace tessel::executor {

namespace {

/// A symbol-safe kernel name for the node.
std::string kernel_name(const graph::Node& node) {
  std::string name = "k_" + node.op_type;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

/// Fails when an attribute the schema knows has another kind (before any op code reads it).
void check_attribute_kinds(const ops::OpContext& ctx) {
  for (const ops::AttrSpec& spec : ctx.def().attributes) {
    const graph::Attribute* given = ctx.node().attribute(spec.name);
    if (given && given->kind != spec.kind)
      ctx.fail("attribute '" + spec.name + "' must be of type " + graph::attr_kind_name(spec.kind) +
               ", found " + graph::attr_kind_name(given->kind));
    if (!given && spec.required) ctx.fail("attribute '" + spec.name + "' is required");
  }
}

/// The output types of the node in `ctx`, after checking its attributes and value inputs.
std::vector<graph::TensorType> infer_outputs(const ops::OpContext& ctx) {
  const graph::Node& node = ctx.node();
  check_attribute_kinds(ctx);
  // A node the runtime runs as a step of its own takes these values at run time.
  bool runtime_step = ctx.def().data_dependent && ctx.def().data_dependent(ctx);
  for (int i : ctx.def().value_inputs)
    if (!runtime_step && ctx.has_input(static_cast<size_t>(i)) &&
        !ctx.input_value(static_cast<size_t>(i)))
      ctx.fail("the value of input " + std::to_string(i) + " '" + node.inputs[i]->name +
               "' must be known at compile time (a constant, or computed from constants and "
               "shapes)");
  std::vector<graph::TensorType> types = ctx.def().infer(ctx);
  // Kernels hold numbers: string values go through the runtime's string steps only.
  if (ctx.def().compute && !runtime_step) {
    bool strings = false;
    for (size_t i = 0; i < ctx.num_inputs(); ++i)
      strings |= ctx.has_input(i) && ctx.input_type(i).dtype.is_string();
    for (const graph::TensorType& type : types) strings |= type.dtype.is_string();
    if (strings)
      ctx.fail("string tensors are not supported by " + node.op_type +
               "; tessel reads and writes strings in StringNormalizer, Cast and CastLike");
  }
  for (size_t k = 0; k < node.outputs.size(); ++k) {
    if (k >= types.size()) {
      if (node.outputs[k]) ctx.fail("output " + std::to_string(k) + " is not supported");
      continue;
    }
    if (!types[k].has_static_shape())
      TESSEL_INTERNAL_ERROR(node.describe(), ": inferred output ", k, " type ",
                            types[k].to_string(), " is not static");
    graph::checked_num_elements(types[k].shape(), node.describe() + " output " + std::to_string(k));
  }
  return types;
}

}  // namespace

std::string node_signature(const graph::Node& node) {
  std::ostringstream text;
  text << std::hexfloat << node.domain << "::" << node.op_type << "/" << node.opset << "{";
  for (const auto& [name, a] : node.attributes) {
    text << name << "=" << static_cast<int>(a.kind) << ":";
    switch (a.kind) {
      case graph::AttrKind::Int:
        text << a.i;
        break;
      case graph::AttrKind::Float:
        text << a.f;
        break;
      case graph::AttrKind::String:
        text << a.s.size() << ":" << a.s;
        break;
      case graph::AttrKind::Ints:
        for (int64_t v : a.ints) text << v << ",";
        break;
      case graph::AttrKind::Floats:
        for (double v : a.floats) text << v << ",";
        break;
      case graph::AttrKind::Strings:
        for (const std::string& v : a.strings) text << v.size() << ":" << v;
        break;
      case graph::AttrKind::Tensor:
        if (a.tensor) {
          text << a.tensor->dtype().to_string() << "[";
          for (int64_t d : a.tensor->shape()) text << d << ",";
          text << "]";
          text.write(static_cast<const char*>(a.tensor->data()),
                     static_cast<std::streamsize>(a.tensor->nbytes()));
        }
        break;
      case graph::AttrKind::Graph:
        text << "<graph@" << a.graph.get() << ">";
        break;
    }
    text << ";";
  }
  text << "}";
  return text.str();
}

const ops::OpDef& find_op(const graph::Node& node) {
  auto domain_name = [](const std::string& d) { return d.empty() ? std::string("ai.onnx") : d; };
  const ops::OpRegistry& registry = ops::OpRegistry::global();
  if (domain_name(node.domain) != "ai.onnx" && node.domain != kTesselDomain) {
    bool known = false;  // another domain with operators of its own (preview.training)
    for (const ops::OpDef* other : registry.all()) known |= other->domain == node.domain;
    if (!known)
      TESSEL_USER_ERROR(node.describe(), ": operators of domain '", node.domain,
                        "' are not supported");
  }
  const ops::OpDef* def = registry.find(node.op_type);
  if (def && domain_name(def->domain) != domain_name(node.domain))
    TESSEL_USER_ERROR(node.describe(), ": operator '", node.op_type, "' is of domain '",
                      domain_name(def->domain), "', not '", domain_name(node.domain), "'");
  if (!def)
    TESSEL_USER_ERROR(node.describe(), ", opset ", node.opset, ": operator '", node.op_type,
                      "' is not supported: ", ops::unsupported_reason(node.op_type));
  if (node.opset < def->since_version)
    TESSEL_USER_ERROR(node.describe(), ", opset ", node.opset, ": ", node.op_type,
                      " is supported from opset ", def->since_version, " on");
  return *def;
}

std::vector<graph::TensorType> infer_node(const graph::Node& node,
                                          const std::vector<graph::TensorType>& input_types,
                                          const std::vector<const runtime::NDArray*>& input_values,
                                          const ops::BodyTyper* body_typer) {
  const ops::OpDef& def = find_op(node);
  return infer_outputs(ops::OpContext(node, def, input_types, input_values, body_typer));
}

NodeKernel compile_node(const graph::Node& node, const std::vector<graph::TensorType>& input_types,
                        const std::vector<const runtime::NDArray*>& input_values,
                        const driver::BuildOptions& options) {
  const ops::OpDef& def = find_op(node);
  ops::OpContext ctx(node, def, input_types, input_values);
  ctx.set_target(&options.target);
  NodeKernel result;
  result.output_types = infer_outputs(ctx);
  if (def.fold) {
    std::vector<runtime::NDArray> folded = def.fold(ctx);
    for (auto& array : folded)
      result.folded.push_back(std::make_shared<const runtime::NDArray>(std::move(array)));
    return result;
  }
  if (def.data_dependent) {
    result.data_dependent = def.data_dependent(ctx);
    if (result.data_dependent) return result;
  }

  std::vector<te::Tensor> placeholders(node.inputs.size());
  for (size_t i = 0; i < node.inputs.size(); ++i)
    if (ctx.has_input(i))
      placeholders[i] = te::placeholder(ops::shape_exprs(ctx.input_shape(i)), input_types[i].dtype,
                                        "in" + std::to_string(i));
  if (!def.compute)
    TESSEL_USER_ERROR(node.describe(), ": ", node.op_type, " has no kernel of its own: the ",
                      "compiler's graph rewrites replace it (run it through the compiler, not "
                      "node by node)");
  std::vector<te::Tensor> outputs = def.compute(ctx, placeholders);
  TESSEL_ICHECK(outputs.size() <= result.output_types.size() && !outputs.empty(), node.describe(),
                ": compute returned ", outputs.size(), " tensors for ", result.output_types.size(),
                " inferred outputs");
  // The kernel takes the inputs its compute reads (value inputs are baked in), then outputs.
  schedule::Schedule schedule(outputs);
  std::vector<te::Tensor> args;
  for (size_t i = 0; i < placeholders.size(); ++i) {
    if (!placeholders[i].defined() || !schedule.stage_of(placeholders[i].op().get())) continue;
    args.push_back(placeholders[i]);
    result.kernel_inputs.push_back(i);
  }
  bool any_elements = false;
  for (size_t k = 0; k < outputs.size(); ++k) {
    const graph::TensorType& expected = result.output_types[k];
    TESSEL_ICHECK(
        outputs[k].dtype() == expected.dtype && te::static_shape(outputs[k]) == expected.shape(),
        node.describe(), ": compute output ", k, " is ", outputs[k].dtype().to_string(),
        " with another shape than the inferred ", expected.to_string());
    if (k < node.outputs.size() && node.outputs[k] && expected.num_elements() > 0)
      any_elements = true;
    args.push_back(outputs[k]);
    result.kernel_outputs.push_back(k);
  }
  if (!any_elements) return result;
  if (def.schedule)
    def.schedule(ctx, schedule, outputs);
  else
    schedules::schedule_generic(schedule, outputs, options.target);
  try {
    result.kernel =
        std::make_shared<driver::Kernel>(driver::build(schedule, args, kernel_name(node), options));
  } catch (const CompileError& e) {
    ctx.fail(std::string("kernel build failed: ") + e.what());
  }
  return result;
}

ops::OpContext context_of_graph_values(const graph::Node& node, const ops::OpDef& def) {
  std::vector<graph::TensorType> types;
  std::vector<const runtime::NDArray*> values;
  for (const graph::Value* in : node.inputs) {
    types.push_back(in ? in->type : graph::TensorType{});
    values.push_back(in ? in->constant.get() : nullptr);
  }
  return ops::OpContext(node, def, std::move(types), std::move(values));
}

std::optional<ops::DataDependentStep> data_dependent_step(const graph::Node& node) {
  const ops::OpDef& def = find_op(node);
  if (!def.data_dependent) return std::nullopt;
  return def.data_dependent(context_of_graph_values(node, def));
}

std::optional<std::vector<int64_t>> output_windows(const graph::Node& node) {
  const ops::OpDef& def = find_op(node);
  if (!def.windows || node.inputs.empty() || !node.inputs[0]) return std::nullopt;
  for (int k : def.value_inputs)
    if (static_cast<size_t>(k) < node.inputs.size() && node.inputs[k] && !node.inputs[k]->constant)
      return std::nullopt;
  for (const graph::Value* in : node.inputs)
    if (in && !in->type.has_static_shape()) return std::nullopt;
  return def.windows(context_of_graph_values(node, def));
}

std::vector<runtime::NDArray> run_data_dependent(
    const graph::Node& node, const NodeKernel& compiled,
    const std::vector<const runtime::NDArray*>& inputs) {
  std::vector<runtime::ConstView> views;
  for (const runtime::NDArray* in : inputs)
    if (in) views.push_back({in->data(), in->dtype(), in->shape()});
  // Each output is allocated at the shape the step finds, its element type the inferred one.
  std::vector<runtime::NDArray> outputs;
  auto allocate = [&](size_t k, const std::vector<int64_t>& shape) -> void* {
    const graph::TensorType& type = compiled.output_types.at(k);
    return outputs.emplace_back(shape, graph::to_runtime_dtype(type.dtype)).data();
  };
  runtime::StringStore strings;
  const ops::DataDependentStep& step = *compiled.data_dependent;
  try {
    runtime::run_data_dependent(step.kind, step.params, step.strings, views, allocate, strings);
  } catch (const runtime::Error& e) {
    TESSEL_USER_ERROR(node.describe(), ": ", e.what());
  }
  // A string output's elements point into `strings`: the array keeps its own copy.
  for (runtime::NDArray& out : outputs)
    if (out.dtype().is_string())
      for (int64_t e = 0; e < out.size(); ++e)
        out.set_string(e, std::string(runtime::string_element(out.data(), e)));
  outputs.resize(std::min(outputs.size(), node.outputs.size()));
  return outputs;
}

std::vector<runtime::NDArray> run_node(const graph::Node& node,
                                       const std::vector<const runtime::NDArray*>& inputs) {
  TESSEL_ICHECK(inputs.size() == node.inputs.size(), node.describe(), ": ", inputs.size(),
                " arrays for ", node.inputs.size(), " inputs");
  std::vector<graph::TensorType> types(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i])
      types[i] = graph::TensorType::of(graph::to_data_type(inputs[i]->dtype()), inputs[i]->shape());
  return run_compiled(node, compile_node(node, types, inputs), inputs);
}

std::vector<runtime::NDArray> run_compiled(const graph::Node& node, const NodeKernel& compiled,
                                           const std::vector<const runtime::NDArray*>& inputs) {
  std::vector<runtime::NDArray> outputs;
  if (!compiled.folded.empty()) {
    for (const auto& array : compiled.folded) outputs.push_back(array->copy());
    return outputs;
  }
  if (compiled.data_dependent) return run_data_dependent(node, compiled, inputs);
  for (size_t k = 0; k < compiled.output_types.size() && k < node.outputs.size(); ++k) {
    const graph::TensorType& type = compiled.output_types[k];
    outputs.emplace_back(type.shape(), graph::to_runtime_dtype(type.dtype));
  }
  std::vector<runtime::NDArray> scratch;
  if (!compiled.kernel) return outputs;
  std::vector<void*> args;
  for (size_t i : compiled.kernel_inputs) args.push_back(const_cast<void*>(inputs[i]->data()));
  for (size_t k : compiled.kernel_outputs) {
    if (k < outputs.size()) {
      args.push_back(outputs[k].data());
    } else {
      const graph::TensorType& type = compiled.output_types[k];
      scratch.emplace_back(type.shape(), graph::to_runtime_dtype(type.dtype));
      args.push_back(scratch.back().data());
    }
  }
  compiled.kernel->run(args);
  return outputs;
}

}  // namespace tessel::executor
