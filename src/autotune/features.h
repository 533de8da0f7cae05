// Cost-model features of a candidate: numbers read off its lowered loop IR, then its knob
// values.
//
// Loop-IR features describe the innermost statement that does the most arithmetic (the
// kernel's main computation): its trip count and floating-point work, how its loops are
// annotated (parallel extent, vector lanes, unrolled iterations), its loads and how many of
// them run along the innermost loop, the loop depth; then the whole function's statements,
// loops and local (register/stack) bytes; then the main statement's mix of operations
// (simple float arithmetic, divisions, math calls, selects) and its memory accesses
// (access_features.h: distinct bytes over the nest and the innermost loop, innermost stride,
// reuse count and reuse distance of its store and of the three loads touching the most
// bytes); last, the bytes all statements write. All counts are log2(1 + x), so that tasks
// of different sizes give comparable numbers. Knob values follow, also as log2(1 + x).
#pragma once

#include <vector>

#include "autotune/task.h"
#include "ir/stmt.h"

namespace tessel::autotune {

/// The loop-IR features of `func` (kLoopFeatures numbers).
std::vector<float> loop_features(const ir::PrimFunc& func);
inline constexpr size_t kLoopFeatures = 39;

/// loop_features of the task's schedule at `point` (lowered, not optimised), then the
/// point's knob values.
std::vector<float> candidate_features(const Task& task, const Point& point);

}  // namespace tessel::autotune
