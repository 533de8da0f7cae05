// Folding the constant stages of a kernel's tensor-expression DAG at compile time.
//
// Operators prepare their weights inside their computes (a convolution packs its weights
// into blocks, a Gemm transposes B, ...). When those weights are constants, the stages
// that read only constants are evaluated once here, by a kernel of their own, and the DAG
// reads the result as a new constant input: the compiled model stores prepared weights
// and never prepares them again.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "driver/build.h"
#include "runtime/ndarray.h"
#include "te/operation.h"

namespace tessel::compiler {

struct FoldedStage {
  /// The placeholder the DAG now reads instead of the stage.
  te::Tensor placeholder;
  std::shared_ptr<const runtime::NDArray> data;
};

struct StageFolding {
  /// The DAG's outputs, rebuilt over the folded placeholders (the given ones when nothing
  /// folded).
  std::vector<te::Tensor> outputs;
  /// Each rebuilt operation by the operation it replaces.
  std::map<const te::OperationNode*, te::Operation> rebuilt;
  std::vector<FoldedStage> folded;

  /// `t` as rebuilt (itself when its operation was not rebuilt).
  te::Tensor map(const te::Tensor& t) const;
};

/// What folding shares between the groups of a model: the kernels evaluating folded stages,
/// by the structure of the stage, and their results, by that structure and the constant
/// arrays read, so that groups preparing the same weights the same way (the steps of an
/// unrolled recurrent cell, repeated blocks sharing a weight) share one prepared copy.
/// Results are keyed by the arrays' addresses: the constants folded must outlive the cache
/// (a model's graphs and compiled bodies do, for the whole compilation).
struct FoldCache {
  std::map<std::string, std::shared_ptr<driver::Kernel>> kernels;
  std::map<std::pair<std::string, std::vector<const runtime::NDArray*>>,
           std::shared_ptr<const runtime::NDArray>>
      results;
};

/// Evaluates the stages of the DAG of `outputs` that read only the placeholders in
/// `constants` (with their data), where the result is at most 8 times larger than the
/// constants it reads; `key` identifies the DAG's structure for the cache.
StageFolding fold_constant_stages(
    const std::vector<te::Tensor>& outputs,
    const std::map<const te::OperationNode*, const runtime::NDArray*>& constants,
    const std::string& key, FoldCache& cache);

}  // namespace tessel::compiler
