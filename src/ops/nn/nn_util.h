// Helpers shared by the nn operator family: operands read through a conversion, element
// type checks, accumulation types, and the default schedule of contraction stages.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ops/knobs.h"
#include "ops/op_context.h"
#include "schedule/schedule.h"
#include "target/target.h"
#include "te/compute.h"

namespace tessel::ops::nn {

/// An operand of a contraction: its static shape and how one element is read (a load of a
/// tensor, possibly converted, e.g. a quantized value minus its zero point).
struct Operand {
  std::vector<int64_t> shape;
  ir::DataType dtype;  ///< the type of the loaded values
  std::function<ir::Expr(const std::vector<ir::Expr>&)> load;

  /// The operand reading `tensor` as it is, converted to `dtype` when that is given.
  static Operand of(const te::Tensor& tensor, std::optional<ir::DataType> dtype = {});
};

/// The float types the nn operators accept.
std::vector<ir::DataType> float_types();

/// Fails unless input `i` has one of the `allowed` element types.
void check_dtype(const OpContext& ctx, size_t i, const std::vector<ir::DataType>& allowed);

/// The type that sums of `dtype` products accumulate in: float32 for 16-bit floats, else
/// `dtype` itself.
ir::DataType accumulation_type(ir::DataType dtype);

/// `tensor` converted to `dtype`: `tensor` itself when the types agree, else a cast stage
/// named `name`.
te::Tensor cast_to(const te::Tensor& tensor, ir::DataType dtype, const std::string& name);

/// `prefix` followed by `index`, e.g. the loop name "k0".
std::string indexed_name(const char* prefix, size_t index);

/// A shape as text, "[1, 3, 5]".
std::string shape_text(const std::vector<int64_t>& shape);

/// Whether the schedule has a stage named `name`.
bool has_stage(const schedule::Schedule& s, const std::string& name);

/// The knobs of schedule_contraction's register tile (0: the default size).
struct ContractionConfig {
  int64_t tile_rows = 0;     ///< rows of the next-to-last axis
  int64_t tile_vectors = 0;  ///< vectors of the innermost axis
};

/// The contraction template `template_name` ("pool", "batched_matmul", ...) for a float32
/// output of `output_shape`: knobs tile_rows and tile_vectors.
TuningSpace contraction_tuning_space(const std::string& template_name,
                                     const std::vector<int64_t>& output_shape,
                                     const target::Target& target);
/// The configuration with the knobs chosen in `knobs`.
ContractionConfig contraction_config(const KnobValues& knobs);

/// The default schedule of a stage that reduces (a matmul, a convolution, a pooling): its
/// spatial loops fused into one loop, run in parallel when the work (output elements times
/// reduction extent) is large; the reduction inside. A float32 reduction without condition
/// accumulates a register tile of outputs across the whole reduction: by default up to 4
/// rows of the next-to-last axis x 2 vectors of the innermost one (8 independent
/// accumulators).
void schedule_contraction(schedule::Schedule& s, const te::Tensor& tensor,
                          const target::Target& target, const ContractionConfig& config = {});

}  // namespace tessel::ops::nn
