// build_group_kernel / lower_group_kernel: a fused group's computes composed into one DAG.
#include "compiler/group_kernel.h"

#include <map>
#include <set>
#include <sstream>

#include "executor/node_kernel.h"
#include "ir/functor.h"
#include "ops/op_util.h"
#include "schedules/cpu/generic.h"
#include "schedules/knobs.h"
#include "support/error.h"
#include "te/compute.h"
#include "te/dag.h"

namespace tessel::compiler {
namespace {

/// A symbol-safe name for a placeholder.
std::string placeholder_name(size_t index) { return "in" + std::to_string(index); }

/// The bytes of a constant, appended to the key.
void describe_data(std::ostringstream& key, const runtime::NDArray& data) {
  key << "#" << data.nbytes() << ":";
  key.write(static_cast<const char*>(data.data()), static_cast<std::streamsize>(data.nbytes()));
}

/// The largest expression (in IR nodes, counted as a tree) that inlining may make. An
/// inlined stage is copied at each of its reader's loads: a chain of stages that each read
/// their input twice (ReLU's select, x * sigmoid(x)) doubles at every step, and every pass
/// after lowering walks expressions as trees. A stage whose expression would exceed this
/// stays materialised (computed at the root into its own buffer), so the growth stops.
constexpr double kMaxInlinedNodes = 1024;

/// The tree size of expressions once the stages in `inlined_sizes` are substituted for
/// their loads.
class InlinedSize : public ir::IRVisitor {
 public:
  explicit InlinedSize(const std::map<const te::OperationNode*, double>& inlined_sizes)
      : inlined_sizes_(inlined_sizes) {}
  double nodes = 0;

  void visit(const ir::Expr& e) override {
    nodes += 1;
    if (const auto* load = e.as<ir::LoadNode>(); load && te::as_tensor_buffer(load->buffer)) {
      auto found = inlined_sizes_.find(te::Tensor(load->buffer).op().get());
      if (found != inlined_sizes_.end()) nodes += found->second - 1;
    }
    ir::IRVisitor::visit(e);
  }
  using ir::IRVisitor::visit;

 private:
  const std::map<const te::OperationNode*, double>& inlined_sizes_;
};

/// What the group builder knows of one value inside the group.
struct Built {
  te::Tensor tensor;
  /// Position of the node's output in the group's chain (for the key).
  std::string id;
};

/// Whether an operation of the DAG of `outputs` reduces.
bool computes_reduction(const std::vector<te::Tensor>& outputs) {
  for (const te::Operation& op : te::topological_order(outputs))
    if (op->has_reduction()) return true;
  return false;
}

}  // namespace

GroupKernel build_group_kernel(const FusedGroup& group, const target::Target& target,
                               FoldCache& fold_cache) {
  GroupKernel result;
  std::ostringstream key;
  std::map<const graph::Value*, Built> built;
  std::vector<const graph::Value*> external;  // graph values behind the placeholders
  std::vector<te::Tensor> placeholders;
  std::vector<te::Tensor> intermediates;
  std::vector<te::Tensor> root_outputs;
  std::vector<std::unique_ptr<ops::OpContext>> contexts;

  for (size_t n = 0; n < group.nodes.size(); ++n) {
    const graph::Node& node = *group.nodes[n];
    const ops::OpDef& def = executor::find_op(node);
    TESSEL_ICHECK(def.compute, node.describe(), ": operator without a compute reached fusion");
    std::vector<graph::TensorType> types(node.inputs.size());
    std::vector<const runtime::NDArray*> values(node.inputs.size(), nullptr);
    std::vector<te::Tensor> tensors(node.inputs.size());
    key << executor::node_signature(node);
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const graph::Value* in = node.inputs[i];
      if (!in) {
        key << "(-)";
        continue;
      }
      types[i] = in->type;
      values[i] = in->constant.get();
      auto found = built.find(in);
      if (found != built.end()) {
        tensors[i] = found->second.tensor;
        key << "(" << found->second.id << ")";
        continue;
      }
      size_t index = std::find(external.begin(), external.end(), in) - external.begin();
      if (index == external.size()) {
        TESSEL_ICHECK(in->type.has_static_shape(), node.describe(), ": input '", in->name,
                      "' has no static type (run type inference first)");
        external.push_back(in);
        placeholders.push_back(te::placeholder(ops::shape_exprs(in->type.shape()), in->type.dtype,
                                               placeholder_name(index)));
      }
      tensors[i] = placeholders[index];
      // Constant inputs are marked: stages reading only them fold, which changes the kernel.
      key << "(in" << index << ":" << in->type.to_string() << (in->constant ? ":const" : "") << ")";
      bool value_input = std::find(def.value_inputs.begin(), def.value_inputs.end(),
                                   static_cast<int>(i)) != def.value_inputs.end();
      if (value_input && in->constant) describe_data(key, *in->constant);
    }
    contexts.push_back(std::make_unique<ops::OpContext>(node, def, types, values));
    contexts.back()->set_target(&target);
    const ops::OpContext& ctx = *contexts.back();
    for (int i : def.value_inputs)
      if (ctx.has_input(static_cast<size_t>(i)) && !ctx.input_value(static_cast<size_t>(i)))
        ctx.fail("the value of input " + std::to_string(i) + " '" + node.inputs[i]->name +
                 "' must be known at compile time");
    std::vector<te::Tensor> outputs = def.compute(ctx, tensors);
    bool last = n + 1 == group.nodes.size();
    for (size_t k = 0; k < outputs.size(); ++k) {
      const graph::Value* out = k < node.outputs.size() ? node.outputs[k] : nullptr;
      if (out)
        TESSEL_ICHECK(outputs[k].dtype() == out->type.dtype &&
                          te::static_shape(outputs[k]) == out->type.shape(),
                      node.describe(), ": compute output ", k, " does not match its type ",
                      out->type.to_string());
      if (last) {
        root_outputs.push_back(outputs[k]);
        result.output_types.push_back(
            out ? out->type
                : graph::TensorType::of(outputs[k].dtype(), te::static_shape(outputs[k])));
        result.arg_values.push_back(out);
      } else {
        intermediates.push_back(outputs[k]);
      }
      if (out) built[out] = Built{outputs[k], "n" + std::to_string(n) + "." + std::to_string(k)};
    }
  }

  // Stages reading only constants run now; their results become constant inputs.
  std::map<const te::OperationNode*, const runtime::NDArray*> constants;
  for (size_t i = 0; i < placeholders.size(); ++i)
    if (external[i]->constant) constants[placeholders[i].op().get()] = external[i]->constant.get();
  // Placeholders the DAG loads from (the others' values were baked into the computes).
  std::set<const te::OperationNode*> loaded;
  for (const te::Operation& op : te::topological_order(root_outputs))
    if (op->is_placeholder()) loaded.insert(op.get());
  bool had_reduction = computes_reduction(root_outputs);
  StageFolding folding = fold_constant_stages(root_outputs, constants, key.str(), fold_cache);
  root_outputs = folding.outputs;
  // When every reduction ran at compile time (a product of constants plus a bias that is
  // not), what remains is element-wise: the anchor's schedule, made for its reduction, does
  // not apply.
  bool reduction_folded = had_reduction && !computes_reduction(root_outputs);
  for (te::Tensor& t : intermediates) t = folding.map(t);
  for (const FoldedStage& stage : folding.folded) {
    auto value = std::make_unique<graph::Value>();
    value->name = stage.placeholder.name();
    value->type =
        graph::TensorType::of(stage.placeholder.dtype(), te::static_shape(stage.placeholder));
    value->constant = stage.data;
    placeholders.push_back(stage.placeholder);
    external.push_back(value.get());
    result.folded_values.push_back(std::move(value));
  }

  // The kernel takes the placeholders its DAG reads (constants folded into the compute as
  // values are not arguments), then the outputs.
  std::set<const te::OperationNode*> read;
  for (const te::Operation& op : te::topological_order(root_outputs)) read.insert(op.get());
  std::vector<const graph::Value*> inputs;
  for (size_t i = 0; i < placeholders.size(); ++i) {
    if (!read.count(placeholders[i].op().get())) {
      if (external[i]->constant && !loaded.count(placeholders[i].op().get()))
        describe_data(key, *external[i]->constant);
      continue;
    }
    result.args.push_back(placeholders[i]);
    inputs.push_back(external[i]);
  }
  result.num_inputs = inputs.size();
  result.arg_values.insert(result.arg_values.begin(), inputs.begin(), inputs.end());
  result.args.insert(result.args.end(), root_outputs.begin(), root_outputs.end());
  for (const te::Tensor& t : root_outputs) key << "->" << t.dtype().to_string();
  result.key = key.str();

  const graph::Node* scheduled = group.anchor ? group.anchor : group.nodes.size() == 1 ? group.nodes[0] : nullptr;
  if (reduction_folded) scheduled = nullptr;
  std::unique_ptr<ops::OpContext> scheduled_context;
  if (scheduled) {
    size_t index = std::find(group.nodes.begin(), group.nodes.end(), scheduled) - group.nodes.begin();
    scheduled_context = std::move(contexts[index]);
  }
  result.scheduler = std::make_shared<GroupScheduler>(root_outputs, intermediates,
                                                      std::move(scheduled_context), target);
  result.schedule = result.scheduler->schedule();

  // In place: an element-wise group may write its output over an input of the same shape.
  bool elementwise = root_outputs.size() == 1 && !group.anchor;
  for (const graph::Node* node : group.nodes)
    elementwise &= is_elementwise(executor::find_op(*node).pattern);
  if (elementwise) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      const graph::TensorType& type = inputs[i]->type;
      if (!inputs[i]->constant && type.dims == result.output_types[0].dims &&
          type.dtype.bytes() == result.output_types[0].dtype.bytes()) {
        result.in_place_input = static_cast<int>(i);
        break;
      }
    }
  }
  return result;
}

GroupScheduler::GroupScheduler(std::vector<te::Tensor> outputs,
                               std::vector<te::Tensor> intermediates,
                               std::unique_ptr<ops::OpContext> scheduled, target::Target target)
    : outputs_(std::move(outputs)),
      intermediates_(std::move(intermediates)),
      scheduled_(std::move(scheduled)),
      target_(std::move(target)) {
  if (scheduled_) scheduled_->set_target(&target_);
}

GroupScheduler::~GroupScheduler() = default;

std::shared_ptr<schedule::Schedule> GroupScheduler::inlined_chain() const {
  auto result = std::make_shared<schedule::Schedule>(outputs_);
  std::map<const te::OperationNode*, double> inlined_sizes;
  for (const te::Tensor& t : intermediates_) {  // producers first
    const schedule::Stage* stage = result->stage_of(t.op().get());
    if (!stage || stage->is_placeholder() || t.op()->has_reduction()) continue;
    InlinedSize size(inlined_sizes);
    for (const ir::Expr& body : t.op()->bodies) size.visit(body);
    if (size.nodes > kMaxInlinedNodes) continue;
    result->compute_inline(t);
    inlined_sizes[t.op().get()] = size.nodes;
  }
  return result;
}

std::shared_ptr<schedule::Schedule> GroupScheduler::schedule(
    const schedules::KnobValues& knobs) const {
  // The chain's intermediate results are computed inside their consumers.
  std::shared_ptr<schedule::Schedule> result = inlined_chain();
  schedule::Schedule& s = *result;
  if (scheduled_ && scheduled_->def().schedule) {
    // A copy reads the knobs, so that concurrent calls do not share them.
    ops::OpContext ctx = *scheduled_;
    ctx.set_knobs(&knobs);
    scheduled_->def().schedule(ctx, s, outputs_);
  } else {
    schedules::schedule_generic(s, outputs_, target_);
  }
  return result;
}

schedules::TuningSpace GroupScheduler::tuning_space() const {
  if (!scheduled_ || !scheduled_->def().tuning_space) return {};
  return scheduled_->def().tuning_space(*scheduled_);
}

ir::PrimFunc lower_group_kernel(const GroupKernel& kernel, const std::string& name,
                                const driver::BuildOptions& options) {
  return driver::lower_and_optimize(*kernel.schedule, kernel.args, name, options.passes);
}

}  // namespace tessel::compiler
