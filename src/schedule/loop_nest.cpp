// Loop extents, root values and guards from a stage's split/fuse relations.
#include "schedule/loop_nest.h"

#include <unordered_map>

#include "support/error.h"

namespace tessel::schedule {
namespace {

using ir::Expr;
using ExprMap = std::unordered_map<std::string, Expr>;

Expr ceil_div(const Expr& n, int64_t d, arith::Analyzer& analyzer) {
  return analyzer.simplify((n + ir::make_int(d - 1)) / ir::make_int(d));
}

const Expr& lookup(const ExprMap& map, const std::string& loop, const Stage& stage) {
  auto it = map.find(loop);
  TESSEL_ICHECK(it != map.end(), "stage '", stage.name, "': loop '", loop, "' has no value");
  return it->second;
}

ExprMap compute_extents(const Stage& stage, const std::vector<Expr>& root_extents,
                        arith::Analyzer& analyzer) {
  TESSEL_ICHECK(root_extents.size() == stage.roots.size(), "stage '", stage.name,
                "': ", root_extents.size(), " root extents for ", stage.roots.size(), " roots");
  ExprMap extent;
  for (size_t r = 0; r < stage.roots.size(); ++r)
    extent[stage.roots[r]] = analyzer.simplify(root_extents[r]);
  for (const LoopRelation& rel : stage.relations) {
    if (rel.kind == LoopRelation::Kind::Split) {
      const Expr n = lookup(extent, rel.parent, stage);
      Expr parts = ceil_div(n, rel.factor, analyzer);
      extent[rel.outer] = rel.by_nparts ? ir::make_int(rel.factor) : parts;
      extent[rel.inner] = rel.by_nparts ? parts : ir::make_int(rel.factor);
    } else {
      extent[rel.fused] =
          analyzer.simplify(lookup(extent, rel.outer, stage) * lookup(extent, rel.inner, stage));
    }
  }
  return extent;
}

}  // namespace

bool divides(int64_t factor, const Expr& extent, arith::Analyzer& analyzer) {
  if (const int64_t* n = ir::as_const_int(extent)) return *n % factor == 0;
  return analyzer.can_prove(extent % ir::make_int(factor) == ir::make_int(0));
}

std::vector<Expr> loop_extents(const Stage& stage, const std::vector<Expr>& root_extents,
                               const std::vector<std::string>& loops, arith::Analyzer& analyzer) {
  ExprMap extent = compute_extents(stage, root_extents, analyzer);
  std::vector<Expr> out;
  for (const std::string& loop : loops) out.push_back(lookup(extent, loop, stage));
  return out;
}

LoopNest derive_loop_nest(const Stage& stage, const std::vector<Expr>& root_extents,
                          arith::Analyzer& analyzer) {
  ExprMap extent = compute_extents(stage, root_extents, analyzer);
  LoopNest nest;
  ExprMap value;
  for (const std::string& leaf : stage.leaves) {
    ir::Var v(leaf);
    const Expr& ext = lookup(extent, leaf, stage);
    analyzer.bind(v, ir::make_int(0), ext);
    nest.leaf_vars.push_back(v);
    nest.leaf_extents.push_back(ext);
    value[leaf] = v;
  }
  // Walk the relations backwards: each derived loop's value is known before its parents'.
  std::vector<Expr> guards;
  for (auto it = stage.relations.rbegin(); it != stage.relations.rend(); ++it) {
    const LoopRelation& rel = *it;
    if (rel.kind == LoopRelation::Kind::Split) {
      const Expr& n = lookup(extent, rel.parent, stage);
      Expr parent =
          analyzer.simplify(lookup(value, rel.outer, stage) * lookup(extent, rel.inner, stage) +
                            lookup(value, rel.inner, stage));
      if (!divides(rel.factor, n, analyzer)) {
        Expr guard = analyzer.simplify(parent < n);
        if (!analyzer.can_prove(guard)) guards.push_back(guard);
      }
      value[rel.parent] = parent;
    } else {
      const Expr& fused = lookup(value, rel.fused, stage);
      const Expr& inner_extent = lookup(extent, rel.inner, stage);
      value[rel.outer] = analyzer.simplify(fused / inner_extent);
      value[rel.inner] = analyzer.simplify(fused % inner_extent);
    }
  }
  nest.guards.assign(guards.rbegin(), guards.rend());
  for (const std::string& root : stage.roots)
    nest.root_offsets.push_back(lookup(value, root, stage));
  return nest;
}

}  // namespace tessel::schedule
