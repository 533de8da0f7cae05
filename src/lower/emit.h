// Statement emission: the loop nest of one stage, with the stages attached to its loops
// placed at the top of those loops' bodies (inside the Allocates of their buffers).
//
// Nest of a reduction whose leaves are [prefix..., first reduction leaf, rest...]:
//   prefix loops {
//     data-parallel loops among the rest { C[..] = identity }
//     first reduction leaf, rest loops { if (condition) C[..] = C[..] op value }
//   }
// so the initialisation is right wherever data-parallel loops were reordered. Guards sit
// at the innermost loop whose variable they use (the initialisation gets those without
// reduction variables). A loop's prefetches (lower/prefetch.h) go into its body last,
// once the attached stages are in it.
#pragma once

#include <vector>

#include "lower/lower_state.h"

namespace tessel::lower {

/// The loop nest of `info` (storage and bounds of every stage must be known).
ir::Stmt emit_stage(const StageInfo& info, LowerState& state);

/// `body` inside an Allocate of each buffer of `stages` that lowering allocates; the
/// first buffer outermost.
ir::Stmt allocate_buffers(const std::vector<const StageInfo*>& stages, ir::Stmt body);

/// `e` with loads of logical tensor buffers turned into loads of their storage (CompileError
/// when a placeholder read is not a function argument).
ir::Expr to_storage(const ir::Expr& e, LowerState& state, const std::string& reader);

}  // namespace tessel::lower
