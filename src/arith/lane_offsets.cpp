// lane_offsets: walks a vector index bottom-up, keeping the scalar part as a linear form and
// the lane-dependent part as constants; strip_lane_clamps: removes the clamps of such
// indices, with the condition under which they do not act.
#include "arith/lane_offsets.h"

#include <algorithm>

#include "ir/functor.h"

namespace tessel::arith {
namespace {

using namespace ir;

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

int64_t floor_mod(int64_t a, int64_t b) {
  return a - floor_div(a, b) * b;
}

/// The integer constant `e` is in every lane (a scalar or a broadcast one), if any.
const int64_t* lane_constant(const Expr& e) {
  if (const auto* b = e.as<BroadcastNode>()) return as_const_int(b->value);
  return as_const_int(e);
}

class Splitter {
 public:
  explicit Splitter(int lanes) : lanes_(lanes) {}

  std::optional<LaneOffsets> split(const Expr& e) {
    if (e.dtype().lanes == 1) return scalar(e);
    if (const auto* b = e.as<BroadcastNode>()) return scalar(b->value);
    if (const auto* r = e.as<RampNode>()) return ramp(r);
    if (const auto* add = e.as<AddNode>()) return combine(add->a, add->b, 1);
    if (const auto* sub = e.as<SubNode>()) return combine(sub->a, sub->b, -1);
    if (const auto* mul = e.as<MulNode>()) return multiply(mul->a, mul->b);
    if (const auto* div = e.as<DivNode>()) return divide(div->a, div->b, true);
    if (const auto* mod = e.as<ModNode>()) return divide(mod->a, mod->b, false);
    return std::nullopt;
  }

 private:
  /// Moves the base's constant into the offsets, so that the base is a sum of terms only.
  static std::optional<LaneOffsets> normalized(LinearForm base, std::vector<int64_t> offsets) {
    for (int64_t& o : offsets)
      if (__builtin_add_overflow(o, base.constant, &o)) return std::nullopt;
    base.constant = 0;
    return LaneOffsets{std::move(base), std::move(offsets)};
  }

  std::optional<LaneOffsets> scalar(const Expr& e) {
    std::optional<LinearForm> form = to_linear(e);
    if (!form) return std::nullopt;
    return normalized(std::move(*form), std::vector<int64_t>(lanes_, 0));
  }

  std::optional<LaneOffsets> ramp(const RampNode* r) {
    const int64_t* stride = as_const_int(r->stride);
    std::optional<LaneOffsets> base = stride ? scalar(r->base) : std::nullopt;
    if (!base) return std::nullopt;
    for (int l = 0; l < lanes_; ++l) {
      int64_t step;
      if (__builtin_mul_overflow(int64_t{l}, *stride, &step) ||
          __builtin_add_overflow(base->offsets[l], step, &base->offsets[l]))
        return std::nullopt;
    }
    return base;
  }

  std::optional<LaneOffsets> combine(const Expr& a, const Expr& b, int64_t sign) {
    std::optional<LaneOffsets> x = split(a), y = split(b);
    if (!x || !y || !x->base.add(y->base, sign)) return std::nullopt;
    for (int l = 0; l < lanes_; ++l) {
      int64_t& o = x->offsets[l];
      if (sign > 0 ? __builtin_add_overflow(o, y->offsets[l], &o)
                   : __builtin_sub_overflow(o, y->offsets[l], &o))
        return std::nullopt;
    }
    return x;
  }

  std::optional<LaneOffsets> multiply(const Expr& a, const Expr& b) {
    const int64_t* c = lane_constant(b);
    const Expr* other = &a;
    if (!c) {
      c = lane_constant(a);
      other = &b;
    }
    std::optional<LaneOffsets> x = c ? split(*other) : std::nullopt;
    if (!x || !x->base.scale(*c)) return std::nullopt;
    for (int64_t& o : x->offsets)
      if (__builtin_mul_overflow(o, *c, &o)) return std::nullopt;
    return x;
  }

  /// (base + o) / c == base / c + o / c and (base + o) % c == o % c when c divides base.
  std::optional<LaneOffsets> divide(const Expr& a, const Expr& b, bool quotient) {
    const int64_t* c = lane_constant(b);
    if (!c || *c <= 0) return std::nullopt;
    std::optional<LaneOffsets> x = split(a);
    if (!x || x->base.coef_gcd() % *c != 0) return std::nullopt;
    LinearForm base;
    base.dtype = x->base.dtype;
    if (quotient)
      for (const LinearTerm& t : x->base.terms) base.add_term(t.atom, t.coef / *c);
    for (int64_t& o : x->offsets) o = quotient ? floor_div(o, *c) : floor_mod(o, *c);
    x->base = std::move(base);
    return x;
  }

  int lanes_;
};

/// Replaces min(e, hi) / max(e, lo) of a split vector e and a broadcast bound by e,
/// collecting the conditions under which each is e in every lane.
class ClampStripper : public IRMutator {
 public:
  std::vector<Expr> conditions;

  Expr mutate_Min(const MinNode* op, const Expr& self) override {
    return strip(op->a, op->b, self, true);
  }
  Expr mutate_Max(const MaxNode* op, const Expr& self) override {
    return strip(op->a, op->b, self, false);
  }

 private:
  Expr strip(const Expr& a0, const Expr& b0, const Expr& self, bool upper) {
    Expr a = mutate(a0), b = mutate(b0);
    for (auto [value, bound] : {std::pair{a, b}, std::pair{b, a}}) {
      const auto* broadcast = bound.as<BroadcastNode>();
      std::optional<LaneOffsets> lanes = broadcast ? lane_offsets(value) : std::nullopt;
      if (!lanes) continue;
      auto [low, high] = std::minmax_element(lanes->offsets.begin(), lanes->offsets.end());
      LinearForm edge = lanes->base;
      edge.constant = upper ? *high : *low;
      Expr at = from_linear(edge);
      conditions.push_back(upper ? at <= broadcast->value : at >= broadcast->value);
      return value;
    }
    if (a.same_as(a0) && b.same_as(b0)) return self;
    return upper ? make_Min(a, b) : make_Max(a, b);
  }
};

}  // namespace

std::optional<UnclampedIndex> strip_lane_clamps(const Expr& index) {
  if (index.dtype().lanes == 1) return std::nullopt;
  ClampStripper stripper;
  Expr unclamped = stripper.mutate(index);
  if (stripper.conditions.empty()) return std::nullopt;
  Expr in_range = stripper.conditions[0];
  for (size_t i = 1; i < stripper.conditions.size(); ++i)
    in_range = in_range && stripper.conditions[i];
  return UnclampedIndex{unclamped, in_range};
}

std::optional<LaneOffsets> lane_offsets(const Expr& index) {
  // Offsets are exact in 64 bits; a narrower index wraps where they would not.
  if (index.dtype().element() != DataType::Index()) return std::nullopt;
  return Splitter(index.dtype().lanes).split(index);
}

}  // namespace tessel::arith
