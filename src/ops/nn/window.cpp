// Window arithmetic of convolutions and poolings (see window.h).
#include "ops/nn/window.h"

#include <algorithm>
#include <string>

#include "ops/nn/nn_util.h"
#include "ops/op_def.h"

namespace tessel::ops::nn {
namespace {

bool has_schema_attr(const OpContext& ctx, const std::string& name) {
  for (const AttrSpec& spec : ctx.def().attributes)
    if (spec.name == name) return true;
  return false;
}

/// Attribute `name` with one value per spatial dimension, or `fallback` everywhere.
std::vector<int64_t> spatial_ints(const OpContext& ctx, const std::string& name, size_t rank,
                                  int64_t fallback) {
  if (!ctx.has_attr(name)) return std::vector<int64_t>(rank, fallback);
  std::vector<int64_t> values = ctx.attr_ints(name);
  if (values.size() != rank)
    ctx.fail("attribute '" + name + "' has " + std::to_string(values.size()) + " values for " +
             std::to_string(rank) + " spatial dimensions");
  return values;
}

void check_at_least(const OpContext& ctx, const std::string& name,
                    const std::vector<int64_t>& values, int64_t low) {
  for (int64_t v : values)
    if (v < low)
      ctx.fail("attribute '" + name + "' is " + shape_text(values) +
               "; every value must be >= " + std::to_string(low));
}

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

int64_t ceil_div(int64_t a, int64_t b) {
  return -floor_div(-a, b);
}

enum class AutoPad { NotSet, SameUpper, SameLower, Valid };

AutoPad auto_pad(const OpContext& ctx) {
  if (!has_schema_attr(ctx, "auto_pad")) return AutoPad::NotSet;
  std::string mode = ctx.attr_string("auto_pad");
  if (mode == "NOTSET") return AutoPad::NotSet;
  if (mode == "SAME_UPPER") return AutoPad::SameUpper;
  if (mode == "SAME_LOWER") return AutoPad::SameLower;
  if (mode == "VALID") return AutoPad::Valid;
  ctx.fail("attribute 'auto_pad' is '" + mode +
           "'; expected NOTSET, SAME_UPPER, SAME_LOWER or VALID");
}

/// Splits `total` padding of dimension d: the odd one goes to the end with SAME_UPPER, to
/// the beginning otherwise (a negative total extends the output at the end).
void split_padding(Window& w, size_t d, int64_t total, bool upper) {
  if (upper) {
    w.pads_begin[d] = floor_div(total, 2);
    w.pads_end[d] = total - w.pads_begin[d];
  } else {
    w.pads_end[d] = floor_div(total, 2);
    w.pads_begin[d] = total - w.pads_end[d];
  }
}

void check_output(const OpContext& ctx, const Window& w) {
  for (size_t d = 0; d < w.rank(); ++d)
    if (w.output[d] < 1)
      ctx.fail("spatial output extents " + shape_text(w.output) + " are empty: input " +
               shape_text(w.input) + ", kernel " + shape_text(w.kernel) + ", strides " +
               shape_text(w.strides) + ", pads " + shape_text(w.pads_begin) + " + " +
               shape_text(w.pads_end));
}

}  // namespace

bool Window::inside() const {
  for (size_t d = 0; d < rank(); ++d)
    if (pads_begin[d] != 0 || (output[d] - 1) * strides[d] + span(d) > input[d]) return false;
  return true;
}

std::vector<int64_t> kernel_extents(const OpContext& ctx, const std::vector<int64_t>& from_weight) {
  if (!ctx.has_attr("kernel_shape")) return from_weight;
  std::vector<int64_t> kernel = ctx.attr_ints("kernel_shape");
  if (!from_weight.empty() && kernel != from_weight)
    ctx.fail("attribute 'kernel_shape' " + shape_text(kernel) +
             " does not match the weight's kernel extents " + shape_text(from_weight));
  return kernel;
}

Window window_attributes(const OpContext& ctx, const std::vector<int64_t>& input,
                         const std::vector<int64_t>& kernel) {
  size_t rank = input.size();
  if (kernel.size() != rank)
    ctx.fail("kernel " + shape_text(kernel) + " does not match the " + std::to_string(rank) +
             " spatial dimensions of the input " + shape_text(input));
  Window w;
  w.input = input;
  w.kernel = kernel;
  w.strides = spatial_ints(ctx, "strides", rank, 1);
  w.dilations = has_schema_attr(ctx, "dilations") ? spatial_ints(ctx, "dilations", rank, 1)
                                                  : std::vector<int64_t>(rank, 1);
  std::vector<int64_t> pads = spatial_ints(ctx, "pads", 2 * rank, 0);
  check_at_least(ctx, "kernel_shape", kernel, 1);
  check_at_least(ctx, "strides", w.strides, 1);
  check_at_least(ctx, "dilations", w.dilations, 1);
  check_at_least(ctx, "pads", pads, 0);
  w.pads_begin.assign(pads.begin(), pads.begin() + static_cast<int64_t>(rank));
  w.pads_end.assign(pads.begin() + static_cast<int64_t>(rank), pads.end());
  return w;
}

Window forward_window(const OpContext& ctx, const std::vector<int64_t>& input,
                      const std::vector<int64_t>& kernel, bool ceil_mode) {
  Window w = window_attributes(ctx, input, kernel);
  AutoPad mode = auto_pad(ctx);
  w.output.resize(w.rank());
  for (size_t d = 0; d < w.rank(); ++d) {
    int64_t stride = w.strides[d];
    if (mode == AutoPad::SameUpper || mode == AutoPad::SameLower) {
      w.output[d] = ceil_div(input[d], stride);
      int64_t total = std::max<int64_t>(0, (w.output[d] - 1) * stride + w.span(d) - input[d]);
      split_padding(w, d, total, mode == AutoPad::SameUpper);
      continue;
    }
    if (mode == AutoPad::Valid) w.pads_begin[d] = w.pads_end[d] = 0;
    int64_t room = input[d] + w.pads_begin[d] + w.pads_end[d] - w.span(d);
    // With ceil_mode a window wider than the padded input by less than a stride still
    // makes one output (ceil((room) / stride + 1) = 1): it reads what input there is.
    if (room < 0 && !(ceil_mode && room > -stride)) {
      w.output[d] = 0;
      continue;
    }
    w.output[d] = (ceil_mode ? ceil_div(room, stride) : room / stride) + 1;
    // A last window starting in the end padding reads no input: it is dropped.
    if (ceil_mode && (w.output[d] - 1) * stride >= input[d] + w.pads_begin[d]) --w.output[d];
  }
  check_output(ctx, w);
  return w;
}

Window transposed_window(const OpContext& ctx, const std::vector<int64_t>& input,
                         const std::vector<int64_t>& kernel) {
  Window w = window_attributes(ctx, input, kernel);
  size_t rank = w.rank();
  std::vector<int64_t> output_padding = spatial_ints(ctx, "output_padding", rank, 0);
  check_at_least(ctx, "output_padding", output_padding, 0);
  std::vector<int64_t> requested;
  if (ctx.has_attr("output_shape")) {
    requested = ctx.attr_ints("output_shape");
    // Some exporters include the batch and channel extents.
    if (requested.size() == rank + 2) requested.erase(requested.begin(), requested.begin() + 2);
    if (requested.size() != rank)
      ctx.fail("attribute 'output_shape' " + shape_text(requested) + " does not have " +
               std::to_string(rank) + " spatial extents");
  }
  AutoPad mode = auto_pad(ctx);
  bool same = mode == AutoPad::SameUpper || mode == AutoPad::SameLower;
  w.output.resize(rank);
  for (size_t d = 0; d < rank; ++d) {
    int64_t full = w.strides[d] * (input[d] - 1) + output_padding[d] + w.span(d);
    if (!requested.empty() || same) {
      w.output[d] = requested.empty() ? input[d] * w.strides[d] : requested[d];
      split_padding(w, d, full - w.output[d], mode == AutoPad::SameUpper);
      continue;
    }
    if (mode == AutoPad::Valid) w.pads_begin[d] = w.pads_end[d] = 0;
    w.output[d] = full - w.pads_begin[d] - w.pads_end[d];
  }
  check_output(ctx, w);
  return w;
}

}  // namespace tessel::ops::nn
