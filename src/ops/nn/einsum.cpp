// Einsum: a general equation parser (explicit and implicit output, '...' ellipsis,
// repeated labels for diagonals and traces) and one compute, a sum over the contracted
// labels of the product of the operands.
#include <algorithm>
#include <cctype>
#include <map>

#include "ops/nn/nn_ops.h"
#include "ops/nn/nn_util.h"
#include "ops/op_util.h"
#include "schedules/cpu/contraction.h"
#include "schedules/cpu/generic.h"

namespace tessel::ops::nn {
namespace {

using graph::AttrKind;

/// Labels: a letter is its character code; dimension j of the broadcast ellipsis is
/// kEllipsis + j.
constexpr int kEllipsis = 1000;

/// A parsed equation resolved against the operand shapes.
struct EinsumPlan {
  std::vector<std::vector<int>> inputs;  ///< one label per dimension of each operand
  std::vector<int> output;               ///< one label per output dimension
  std::vector<int> contracted;           ///< labels summed over, in order of appearance
  std::map<int, int64_t> extent;
};

/// One side of a term, before the ellipsis is expanded.
struct Term {
  std::vector<int> before, after;  ///< letters before and after '...'
  bool ellipsis = false;
};

Term parse_term(const OpContext& ctx, const std::string& text) {
  Term term;
  for (size_t p = 0; p < text.size(); ++p) {
    char c = text[p];
    if (std::isalpha(static_cast<unsigned char>(c))) {
      (term.ellipsis ? term.after : term.before).push_back(c);
    } else if (text.compare(p, 3, "...") == 0 && !term.ellipsis) {
      term.ellipsis = true;
      p += 2;
    } else {
      ctx.fail("einsum term '" + text + "' has an unexpected '" + std::string(1, c) + "'");
    }
  }
  return term;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts(1);
  for (char c : text) {
    if (c == separator)
      parts.emplace_back();
    else
      parts.back() += c;
  }
  return parts;
}

std::string label_name(int label) {
  return label >= kEllipsis ? indexed_name("e", static_cast<size_t>(label - kEllipsis))
                            : std::string(1, char(label));
}

/// Records that a dimension of `label` has extent `extent` (extents of 1 broadcast).
void add_extent(const OpContext& ctx, EinsumPlan& plan, int label, int64_t extent) {
  auto [it, inserted] = plan.extent.emplace(label, extent);
  if (inserted || it->second == extent || extent == 1) return;
  if (it->second != 1)
    ctx.fail("einsum label '" + label_name(label) + "' has extents " + std::to_string(it->second) +
             " and " + std::to_string(extent));
  it->second = extent;
}

EinsumPlan plan_einsum(const OpContext& ctx) {
  std::string equation;
  for (char c : ctx.attr_string("equation"))
    if (!std::isspace(static_cast<unsigned char>(c))) equation += c;
  size_t arrow = equation.find("->");
  std::vector<std::string> lhs = split(equation.substr(0, arrow), ',');
  if (lhs.size() != ctx.num_inputs())
    ctx.fail("equation '" + equation + "' has " + std::to_string(lhs.size()) + " terms for " +
             std::to_string(ctx.num_inputs()) + " inputs");

  EinsumPlan plan;
  std::vector<Term> terms;
  size_t ellipsis_rank = 0;
  for (size_t i = 0; i < lhs.size(); ++i) {
    terms.push_back(parse_term(ctx, lhs[i]));
    size_t letters = terms[i].before.size() + terms[i].after.size();
    size_t rank = ctx.input_shape(i).size();
    if (letters > rank || (!terms[i].ellipsis && letters != rank))
      ctx.fail("einsum term '" + lhs[i] + "' does not match input " + std::to_string(i) +
               " of shape " + shape_text(ctx.input_shape(i)));
    ellipsis_rank = std::max(ellipsis_rank, rank - letters);
  }
  std::map<int, int> count;
  for (size_t i = 0; i < terms.size(); ++i) {
    std::vector<int64_t> shape = ctx.input_shape(i);
    std::vector<int> labels = terms[i].before;
    size_t own = shape.size() - terms[i].before.size() - terms[i].after.size();
    for (size_t j = 0; j < own; ++j)
      labels.push_back(kEllipsis + static_cast<int>(ellipsis_rank - own + j));
    labels.insert(labels.end(), terms[i].after.begin(), terms[i].after.end());
    for (size_t d = 0; d < labels.size(); ++d) {
      add_extent(ctx, plan, labels[d], shape[d]);
      ++count[labels[d]];
    }
    plan.inputs.push_back(labels);
  }

  std::vector<int> ellipsis;
  for (size_t j = 0; j < ellipsis_rank; ++j) ellipsis.push_back(kEllipsis + static_cast<int>(j));
  if (arrow == std::string::npos) {
    // Implicit output: the ellipsis, then the labels used once, in alphabetical order.
    plan.output = ellipsis;
    for (const auto& [label, uses] : count)
      if (label < kEllipsis && uses == 1) plan.output.push_back(label);
  } else {
    Term out = parse_term(ctx, equation.substr(arrow + 2));
    plan.output = out.before;
    if (out.ellipsis) plan.output.insert(plan.output.end(), ellipsis.begin(), ellipsis.end());
    plan.output.insert(plan.output.end(), out.after.begin(), out.after.end());
    for (size_t d = 0; d < plan.output.size(); ++d) {
      int label = plan.output[d];
      if (!count.count(label))
        ctx.fail("einsum output label '" + label_name(label) + "' is not in any input");
      if (std::count(plan.output.begin(), plan.output.end(), label) > 1)
        ctx.fail("einsum output label '" + label_name(label) + "' appears twice");
    }
  }
  for (const std::vector<int>& labels : plan.inputs)
    for (int label : labels)
      if (std::find(plan.output.begin(), plan.output.end(), label) == plan.output.end() &&
          std::find(plan.contracted.begin(), plan.contracted.end(), label) == plan.contracted.end())
        plan.contracted.push_back(label);
  return plan;
}

std::vector<int64_t> output_shape(const EinsumPlan& plan) {
  std::vector<int64_t> shape;
  for (int label : plan.output) shape.push_back(plan.extent.at(label));
  return shape;
}

void check_operands(const OpContext& ctx) {
  if (ctx.num_inputs() == 0) ctx.fail("einsum needs at least one input");
  std::vector<ir::DataType> types = float_types();
  for (int bits : {8, 16, 32, 64}) {
    types.push_back(ir::DataType::Int(bits));
    types.push_back(ir::DataType::UInt(bits));
  }
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    check_dtype(ctx, i, types);
    if (ctx.input_type(i).dtype != ctx.input_type(0).dtype)
      ctx.fail("inputs 0 and " + std::to_string(i) + " have element types " +
               ctx.input_type(0).dtype.to_string() + " and " + ctx.input_type(i).dtype.to_string());
  }
}

std::vector<te::Tensor> einsum_compute(const OpContext& ctx, const std::vector<te::Tensor>& in) {
  EinsumPlan plan = plan_einsum(ctx);
  ir::DataType dtype = in[0].dtype(), acc = accumulation_type(dtype);
  std::vector<te::IterVar> sums;
  std::map<int, ir::Expr> var;
  for (int label : plan.contracted) {
    sums.push_back(te::reduce_axis(ir::Expr(plan.extent.at(label)), "sum_" + label_name(label)));
    var[label] = sums.back().var;
  }
  std::vector<std::string> names;
  for (int label : plan.output) names.push_back(label_name(label));
  te::Tensor y = te::compute(
      shape_exprs(output_shape(plan)),
      [&](const std::vector<te::Var>& index) {
        for (size_t d = 0; d < index.size(); ++d) var[plan.output[d]] = index[d];
        ir::Expr product;
        for (size_t i = 0; i < in.size(); ++i) {
          std::vector<ir::Expr> at;
          std::vector<int64_t> shape = ctx.input_shape(i);
          for (size_t d = 0; d < shape.size(); ++d) {
            int label = plan.inputs[i][d];
            bool broadcast = shape[d] == 1 && plan.extent.at(label) != 1;
            at.push_back(broadcast ? ir::Expr(int64_t{0}) : var.at(label));
          }
          ir::Expr value = ir::cast(acc, in[i](at));
          product = product.defined() ? product * value : value;
        }
        return sums.empty() ? product : te::sum(product, sums);
      },
      "einsum", names);
  return {cast_to(y, dtype, "einsum.cast")};
}

OpDef einsum_def() {
  OpDef def;
  def.name = "Einsum";
  def.since_version = 12;
  def.attributes = {{"equation", AttrKind::String, std::nullopt, true}};
  def.pattern = PatternKind::OutFusable;
  def.infer = [](const OpContext& ctx) {
    check_operands(ctx);
    return std::vector{
        graph::TensorType::of(ctx.input_type(0).dtype, output_shape(plan_einsum(ctx)))};
  };
  def.compute = einsum_compute;
  def.schedule = [](const OpContext& ctx, schedule::Schedule& s,
                    const std::vector<te::Tensor>& outputs) {
    schedules::schedule_contraction(s, s.tensor("einsum"), ctx.target());
    schedules::schedule_generic(s, outputs, ctx.target());
  };
  return def;
}

}  // namespace

void register_einsum_op(OpRegistry& registry) {
  registry.add(einsum_def());
}

}  // namespace tessel::ops::nn
