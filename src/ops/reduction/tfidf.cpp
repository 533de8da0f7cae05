// TfIdfVectorizer on integer tokens: per row of the input, the count of each n-gram of the
// pool (its n tokens d apart, d = skip + 1 for every skip up to max_skip_count; a 1-gram
// counts once), at the output coordinate the pool gives it, weighted as the mode says.
//
// The pool is known at compile time: per output coordinate, its n-gram's length, tokens
// and weight are small tables (stages reading nothing, which the compiler folds into
// constants), and each output element is one conditional reduction over the skips and the
// start positions. String pools and inputs are refused (tessel has no string tensors).
#include <algorithm>
#include <map>

#include "ops/op_util.h"
#include "ops/reduction/reduction_ops.h"
#include "ops/reduction/reduction_util.h"

namespace tessel::ops::reduction {
namespace {

using graph::AttrKind;
using ir::Expr;

enum class Weighting { TF, IDF, TFIDF };

/// The pool, one entry per output coordinate (an empty n-gram where the pool maps none,
/// or one of a length outside [min_gram_length, max_gram_length]).
struct Pool {
  Weighting mode = Weighting::TF;
  int64_t max_gram = 1, max_skip = 0;
  std::vector<std::vector<int64_t>> ngrams;  // by output coordinate
  std::vector<double> weights;               // by output coordinate
};

Pool read_pool(const OpContext& ctx) {
  if (ctx.has_attr("pool_strings"))
    ctx.fail("a pool of strings needs string tensors, which tessel does not support");
  if (!ctx.has_attr("pool_int64s")) ctx.fail("attribute pool_int64s is required");
  int rank = ctx.input_type(0).rank();
  ir::DataType dtype = ctx.input_type(0).dtype;
  if ((rank != 1 && rank != 2) || (dtype != ir::DataType::Int(32) && dtype != ir::DataType::Int(64)))
    ctx.fail("input X must be a 1-d or 2-d int32 or int64 tensor, found " +
             ctx.input_type(0).to_string());
  Pool p;
  std::string mode = ctx.attr_string("mode");
  if (mode == "TF") p.mode = Weighting::TF;
  else if (mode == "IDF") p.mode = Weighting::IDF;
  else if (mode == "TFIDF") p.mode = Weighting::TFIDF;
  else ctx.fail("mode must be TF, IDF or TFIDF, found '" + mode + "'");
  int64_t min_gram = ctx.attr_int("min_gram_length");
  p.max_gram = ctx.attr_int("max_gram_length");
  p.max_skip = ctx.attr_int("max_skip_count");
  if (min_gram < 1 || p.max_gram < min_gram || p.max_skip < 0)
    ctx.fail("n-gram lengths " + std::to_string(min_gram) + " to " + std::to_string(p.max_gram) +
             " and max_skip_count " + std::to_string(p.max_skip) +
             ": expected 1 <= min <= max and a skip count >= 0");
  std::vector<int64_t> pool = ctx.attr_ints("pool_int64s");
  std::vector<int64_t> starts = ctx.attr_ints("ngram_counts");
  std::vector<int64_t> indexes = ctx.attr_ints("ngram_indexes");
  std::vector<double> weights = ctx.has_attr("weights") ? ctx.attr_floats("weights")
                                                        : std::vector<double>(indexes.size(), 1.0);
  if (weights.size() != indexes.size())
    ctx.fail("weights has " + std::to_string(weights.size()) + " values for " +
             std::to_string(indexes.size()) + " n-grams");
  // Level n (1-based) holds n-grams of n tokens from pool position starts[n - 1] to the next
  // level's start (or the pool's end).
  std::vector<std::pair<int64_t, std::vector<int64_t>>> entries;  // (length, tokens)
  for (size_t level = 0; level < starts.size(); ++level) {
    int64_t n = static_cast<int64_t>(level) + 1;
    int64_t begin = starts[level];
    int64_t end = level + 1 < starts.size() ? starts[level + 1] : static_cast<int64_t>(pool.size());
    if (begin < 0 || end < begin || end > static_cast<int64_t>(pool.size()) || (end - begin) % n)
      ctx.fail("ngram_counts " + std::to_string(level) + " spans pool positions " +
               std::to_string(begin) + " to " + std::to_string(end) + ", not whole " +
               std::to_string(n) + "-grams of the " + std::to_string(pool.size()) + " tokens");
    for (int64_t at = begin; at < end; at += n)
      entries.push_back({n, std::vector<int64_t>(pool.begin() + at, pool.begin() + at + n)});
  }
  if (entries.size() != indexes.size())
    ctx.fail("the pool holds " + std::to_string(entries.size()) + " n-grams and ngram_indexes " +
             std::to_string(indexes.size()) + " coordinates");
  int64_t outputs = indexes.empty() ? 0 : *std::max_element(indexes.begin(), indexes.end()) + 1;
  p.ngrams.assign(static_cast<size_t>(outputs), {});
  p.weights.assign(static_cast<size_t>(outputs), 0.0);
  std::vector<bool> taken(static_cast<size_t>(outputs), false);
  for (size_t i = 0; i < entries.size(); ++i) {
    int64_t j = indexes[i];
    if (j < 0) ctx.fail("ngram_indexes holds the negative coordinate " + std::to_string(j));
    if (taken[static_cast<size_t>(j)])
      ctx.fail("ngram_indexes maps two n-grams to coordinate " + std::to_string(j));
    taken[static_cast<size_t>(j)] = true;
    const auto& [n, tokens] = entries[i];
    if (n >= min_gram && n <= p.max_gram) p.ngrams[static_cast<size_t>(j)] = tokens;
    p.weights[static_cast<size_t>(j)] = weights[i];
  }
  return p;
}

std::vector<int64_t> output_shape(const OpContext& ctx, const Pool& p) {
  std::vector<int64_t> shape = ctx.input_shape(0);
  shape.back() = static_cast<int64_t>(p.ngrams.size());
  return shape;
}

/// values[i] at position `i` of a table, as a balanced tree of selects over [first, last).
Expr lookup(const Expr& i, const std::vector<Expr>& values, size_t first, size_t last) {
  if (last - first == 1) return values[first];
  size_t middle = (first + last) / 2;
  return ir::select(i < static_cast<int64_t>(middle), lookup(i, values, first, middle),
                    lookup(i, values, middle, last));
}

/// A 1-d stage reading nothing: values[j] at j (folded into a constant by the compiler).
te::Tensor table(const std::vector<Expr>& values, const std::string& name) {
  return te::compute(
      {Expr(static_cast<int64_t>(values.size()))},
      [&](te::Var j) { return lookup(j, values, 0, values.size()); }, name, {"j"});
}

std::vector<te::Tensor> tfidf(const OpContext& ctx, const std::vector<te::Tensor>& in) {
  Pool p = read_pool(ctx);
  if (p.ngrams.empty()) ctx.fail("the pool maps no n-gram to an output coordinate");
  std::vector<int64_t> shape = ctx.input_shape(0);
  const int64_t columns = shape.back();
  ir::DataType i64 = ir::DataType::Int(64), f32 = ir::DataType::Float(32);
  std::vector<Expr> lengths, weights;
  std::vector<std::vector<Expr>> tokens(static_cast<size_t>(p.max_gram));
  for (size_t j = 0; j < p.ngrams.size(); ++j) {
    const std::vector<int64_t>& g = p.ngrams[j];
    lengths.push_back(ir::make_int(static_cast<int64_t>(g.size())));
    weights.push_back(ir::make_const(f32, p.weights[j]));
    for (size_t k = 0; k < tokens.size(); ++k)
      tokens[k].push_back(ir::make_int(k < g.size() ? g[k] : 0));
  }
  te::Tensor length = table(lengths, "tfidf.length");
  te::Tensor weight = table(weights, "tfidf.weight");
  std::vector<te::Tensor> token;
  for (size_t k = 0; k < tokens.size(); ++k)
    token.push_back(table(tokens[k], "tfidf.token" + std::to_string(k)));
  const te::Tensor& x = in[0];
  auto counts = [&](const std::vector<te::Var>& out) {
    ir::IterVar skip = te::reduce_axis(p.max_skip + 1, "skip");
    ir::IterVar start = te::reduce_axis(columns, "start");
    Expr j = out.back(), n = length(j), step = skip.var + 1;
    // A 1-gram counts once, not once per skip; the n-gram must end inside the row.
    Expr match = n >= 1 && (n > 1 || skip.var == 0) && start.var + (n - 1) * step < columns;
    for (size_t k = 0; k < token.size(); ++k) {
      std::vector<Expr> at(out.begin(), out.end() - 1);
      at.push_back(ir::min(start.var + static_cast<int64_t>(k) * step, Expr(columns - 1)));
      match = match && (n <= static_cast<int64_t>(k) || ir::cast(i64, x(at)) == token[k](j));
    }
    return te::sum(ir::make_const(f32, 1.0), {skip, start}, match);
  };
  te::Tensor count = te::compute(shape_exprs(output_shape(ctx, p)), counts, "tfidf.count");
  auto weighted = [&](const std::vector<Expr>& out) {
    Expr c = count(out), w = weight(out.back());
    switch (p.mode) {
      case Weighting::TF: return c;
      case Weighting::IDF: return ir::select(c > ir::make_const(f32, 0.0), w, ir::make_const(f32, 0.0));
      case Weighting::TFIDF: return c * w;
    }
    return c;
  };
  return {map_over(output_shape(ctx, p), weighted, "tfidf")};
}

}  // namespace

void register_tfidf_op(OpRegistry& registry) {
  OpDef def;
  def.name = "TfIdfVectorizer";
  def.since_version = 9;
  def.attributes = {{"max_gram_length", AttrKind::Int, std::nullopt, true},
                    {"min_gram_length", AttrKind::Int, std::nullopt, true},
                    {"max_skip_count", AttrKind::Int, std::nullopt, true},
                    {"mode", AttrKind::String, std::nullopt, true},
                    {"ngram_counts", AttrKind::Ints, std::nullopt, true},
                    {"ngram_indexes", AttrKind::Ints, std::nullopt, true},
                    {"pool_int64s", AttrKind::Ints, std::nullopt},
                    {"pool_strings", AttrKind::Strings, std::nullopt},
                    {"weights", AttrKind::Floats, std::nullopt}};
  def.pattern = PatternKind::Reduction;
  def.infer = [](const OpContext& ctx) {
    return std::vector{graph::TensorType::of(ir::DataType::Float(32), output_shape(ctx, read_pool(ctx)))};
  };
  def.compute = tfidf;
  registry.add(std::move(def));
}

}  // namespace tessel::ops::reduction
