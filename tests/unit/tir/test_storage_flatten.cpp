// Tests of storage_flatten: golden IR text and interpreter equivalence on 1-4-D buffers.
#include <gtest/gtest.h>

#include "ir/functor.h"
#include "pass_test_util.h"
#include "tir/storage_flatten.h"
#include "tir/verify.h"

namespace tessel::tir {
namespace {

using namespace ir;
using testing::expect_same_results;

TEST(StorageFlatten, GoldenTwoDimensional) {
  Buffer a = Buffer::make("A", DataType::Float(32), {make_int(3), make_int(5)});
  Buffer out = Buffer::make("B", DataType::Float(32), {make_int(5), make_int(3)});
  Buffer t = Buffer::make("T", DataType::Float(32), {make_int(3), make_int(5)}, MemoryScope::Local);
  Var i("i"), j("j");
  Stmt fill = make_For(i, make_int(0), make_int(3), ForKind::Serial,
                       make_For(j, make_int(0), make_int(5), ForKind::Serial,
                                make_Store(t, make_Load(a, {i, j}) * make_float(2.0f), {i, j})));
  Stmt copy = make_For(j, make_int(0), make_int(5), ForKind::Serial,
                       make_For(i, make_int(0), make_int(3), ForKind::Serial,
                                make_Store(out, make_Load(t, {i, j}), {j, i})));
  PrimFunc f{"transpose2", {a, out}, make_Allocate(t, make_Seq({fill, copy}))};
  PrimFunc flat = storage_flatten(f);
  EXPECT_EQ(to_string(flat), R"(func transpose2(A: float32[15], B: float32[15]) {
  allocate T: float32[15] local {
    for (i, 0, 3) {
      for (j, 0, 5) {
        T[i * 5 + j] = A[i * 5 + j] * 2.0f
      }
    }
    for (j, 0, 5) {
      for (i, 0, 3) {
        B[j * 3 + i] = T[i * 5 + j]
      }
    }
  }
}
)");
  // The calling convention is unchanged: same data variables.
  EXPECT_TRUE(flat.params[0]->data.same_as(a->data));
  EXPECT_TRUE(flat.params[1]->data.same_as(out->data));
  verify_func(flat);
  expect_same_results(f, flat);
}

/// A loop nest over `shape` (outermost first) around `body(indices)`.
template <class Body>
Stmt loop_nest(const std::vector<int64_t>& shape, Body&& body) {
  std::vector<Var> vars;
  for (size_t d = 0; d < shape.size(); ++d) {
    std::string name = "i";
    name += std::to_string(d);
    vars.emplace_back(name);
  }
  std::vector<Expr> idx(vars.begin(), vars.end());
  Stmt s = body(idx);
  for (size_t d = shape.size(); d-- > 0;)
    s = make_For(vars[d], make_int(0), make_int(shape[d]), ForKind::Serial, s);
  return s;
}

std::vector<Expr> extents(const std::vector<int64_t>& shape) {
  return std::vector<Expr>(shape.begin(), shape.end());
}

/// out[idx] = A[idx] - T[rev idx] with T[rev idx] = B[rev idx] * 3 and T, B of reversed shape.
PrimFunc reversing_func(const std::vector<int64_t>& shape) {
  std::vector<int64_t> rshape(shape.rbegin(), shape.rend());
  Buffer a = Buffer::make("A", DataType::Float(32), extents(shape));
  Buffer b = Buffer::make("B", DataType::Float(32), extents(rshape));
  Buffer out = Buffer::make("out", DataType::Float(32), extents(shape));
  Buffer t = Buffer::make("T", DataType::Float(32), extents(rshape), MemoryScope::Local);
  auto rev = [](std::vector<Expr> idx) { return std::vector<Expr>(idx.rbegin(), idx.rend()); };
  Stmt fill = loop_nest(shape, [&](const std::vector<Expr>& idx) {
    return make_Store(t, make_Load(b, rev(idx)) * make_float(3.0f), rev(idx));
  });
  Stmt use = loop_nest(shape, [&](const std::vector<Expr>& idx) {
    return make_Store(out, make_Load(a, idx) - make_Load(t, rev(idx)), idx);
  });
  return PrimFunc{"reverse", {a, b, out}, make_Allocate(t, make_Seq({fill, use}))};
}

/// Every buffer seen anywhere in a statement.
std::vector<Buffer> buffers_in(const Stmt& s) {
  struct Collector : IRVisitor {
    void visit_buffer(const Buffer& b) override { found.push_back(b); }
    std::vector<Buffer> found;
  } c;
  c.visit(s);
  return c.found;
}

TEST(StorageFlatten, OneToFourDimensionsMatchTheInterpreter) {
  const std::vector<std::vector<int64_t>> shapes = {{7}, {3, 5}, {2, 5, 3}, {3, 1, 4, 2}};
  for (const auto& shape : shapes) {
    SCOPED_TRACE(shape.size());
    PrimFunc f = reversing_func(shape);
    PrimFunc flat = storage_flatten(f);
    int64_t total = 1;
    for (int64_t d : shape) total *= d;
    for (const Buffer& b : flat.params) {
      ASSERT_EQ(b.ndim(), 1);
      EXPECT_TRUE(is_const_int(b->shape[0], total));
    }
    for (const Buffer& b : buffers_in(flat.body)) EXPECT_EQ(b.ndim(), 1) << b->name;
    verify_func(flat);
    expect_same_results(f, flat);
  }
}

TEST(StorageFlatten, ZeroDimensionalAndOneDimensionalBuffers) {
  Buffer s = Buffer::make("s", DataType::Float(32), {});
  Buffer a = Buffer::make("A", DataType::Float(32), {make_int(6)});
  Var i("i");
  Stmt body = make_For(i, make_int(0), make_int(6), ForKind::Serial,
                       make_Store(a, make_Load(a, {i}) * make_Load(s, {}), {i}));
  PrimFunc f{"scale", {s, a}, body};
  PrimFunc flat = storage_flatten(f);
  EXPECT_EQ(to_string(flat), R"(func scale(s: float32[1], A: float32[6]) {
  for (i, 0, 6) {
    A[i] = A[i] * s[0]
  }
}
)");
  EXPECT_TRUE(flat.params[1].same_as(a));  // already 1-d: untouched
  expect_same_results(f, flat);
}

TEST(StorageFlatten, SymbolicShapeAndVectorIndex) {
  Var n("n");
  Buffer a = Buffer::make("A", DataType::Float(32), {n, make_int(4)});
  Var i("i");
  // A[i, ramp(0, 1, 4)] = broadcast(1.0f, 4): one vector index among scalar ones.
  Stmt body = make_For(i, make_int(0), n, ForKind::Serial,
                       make_Store(a, make_Broadcast(make_float(1.0f), 4),
                                  {i, make_Ramp(make_int(0), make_int(1), 4)}));
  PrimFunc flat = storage_flatten(PrimFunc{"ones", {a}, body});
  EXPECT_EQ(to_string(flat), R"(func ones(A: float32[n * 4]) {
  for (i, 0, n) {
    A[broadcast(i * 4, 4) + ramp(0, 1, 4)] = broadcast(1.0f, 4)
  }
}
)");
  verify_func(flat);
}

}  // namespace
}  // namespace tessel::tir
