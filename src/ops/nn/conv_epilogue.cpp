// The element-wise epilogue of a convolution's schedule: the fused output computed per
// register tile of the convolution (shared by Conv and tessel's Conv2dNCHWc).
#include "ops/nn/conv.h"
#include "ops/op_util.h"

namespace tessel::ops::nn {
namespace {

/// Whether `op` reads the stage `target`, directly or through stages computed inline.
bool reads_through_inlined(const schedule::Schedule& s, const te::OperationNode& op,
                           const schedule::Stage& target) {
  for (const te::Tensor& in : op.inputs) {
    const schedule::Stage* stage = s.stage_of(in.op().get());
    if (!stage) continue;
    if (stage == &target) return true;
    if (stage->attach == schedule::AttachKind::Inline &&
        reads_through_inlined(s, *stage->op, target))
      return true;
  }
  return false;
}

}  // namespace

te::Tensor elementwise_epilogue(schedule::Schedule& s, const te::Tensor& conv,
                                const std::vector<int64_t>& output_shape,
                                const std::vector<te::Tensor>& outputs) {
  if (outputs.size() != 1 || outputs[0].op().get() == conv.op().get()) return {};
  const te::Tensor& out = outputs[0];
  const schedule::Stage& stage = s.stage(out);
  if (stage.is_placeholder() || stage.is_transformed() || out.op()->has_reduction() ||
      te::static_shape(out) != output_shape)
    return {};
  // Every stage between the convolution and the output must be inlined into the output.
  std::string bias = std::string(kConvStage) + ".bias", cast = std::string(kConvStage) + ".cast",
              drop = std::string(kConvStage) + ".k";
  for (const std::string& name : {bias, cast, drop})
    if (has_stage(s, name) && s.stage(name).name != stage.name) {
      if (s.stage(name).attach != schedule::AttachKind::Inline) return {};
    }
  return reads_through_inlined(s, *stage.op, *s.stage_of(conv.op().get())) ? out : te::Tensor();
}


}  // namespace tessel::ops::nn
