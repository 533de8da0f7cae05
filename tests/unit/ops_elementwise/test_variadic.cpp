// Sum, Mean, Max and Min over one to four inputs with numpy broadcasting, against naive
// loops; float Max / Min propagate NaN.
#include "unit/ops_elementwise/elementwise_test_util.h"

namespace tessel::ops::testing {
namespace {

struct VariadicCase {
  std::string op;
  std::function<double(const std::vector<double>&)> reference;
  std::vector<DType> dtypes;
};

double sum(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}

double extreme(const std::vector<double>& v, bool is_max) {
  double r = v[0];
  for (double x : v) {
    if (std::isnan(x) || std::isnan(r)) return kNaN;
    r = is_max ? std::max(r, x) : std::min(r, x);
  }
  return r;
}

TEST(Variadic, BroadcastAndFold) {
  const std::vector<VariadicCase> cases = {
      {"Sum", sum, {kF32, kF64, kF16}},
      {"Mean", [](const std::vector<double>& v) { return sum(v) / v.size(); }, {kF32, kF64, kF16}},
      {"Max",
       [](const std::vector<double>& v) { return extreme(v, true); },
       {kF32, kF64, kF16, kI8, kI32, kI64, kU8, kU16, kU32, kU64}},
      {"Min",
       [](const std::vector<double>& v) { return extreme(v, false); },
       {kF32, kF64, kF16, kI8, kI16, kI64, kU8, kU64}},
  };
  const std::vector<std::vector<int64_t>> shapes = {{2, 3, 4}, {3, 1}, {4}, {}};
  const std::vector<int64_t> out_shape = {2, 3, 4};
  for (const VariadicCase& c : cases) {
    for (DType dtype : c.dtypes) {
      for (size_t arity = 1; arity <= shapes.size(); ++arity) {
        std::vector<NDArray> arrays;
        std::vector<std::vector<double>> values;
        for (size_t i = 0; i < arity; ++i) {
          std::vector<double> v;
          for (int64_t k = 0; k < count(shapes[i]); ++k)
            v.push_back(dtype.code == runtime::DTypeCode::Float && k == 5 && i == 0
                            ? kNaN
                            : static_cast<double>((k * 7 + i * 3) % 11) -
                                  (dtype.code == runtime::DTypeCode::UInt ? 0 : 5));
          values.push_back(stored(dtype, v));
          arrays.push_back(make_array(dtype, shapes[i], values.back()));
        }
        std::vector<const NDArray*> inputs;
        for (const NDArray& a : arrays) inputs.push_back(&a);
        std::vector<int64_t> shape = arity == 1 ? shapes[0] : out_shape;
        std::vector<double> expected;
        for (int64_t k = 0; k < count(shape); ++k) {
          std::vector<double> operands;
          for (size_t i = 0; i < arity; ++i)
            operands.push_back(
                values[i][static_cast<size_t>(broadcast_index(shape, shapes[i], k))]);
          expected.push_back(c.reference(operands));
        }
        std::string what = c.op + " of " + std::to_string(arity) + " inputs";
        expect_array(run_op(c.op, inputs), dtype, shape, stored(dtype, expected), rtol_for(dtype),
                     1e-6, what);
      }
    }
  }
}

}  // namespace
}  // namespace tessel::ops::testing
