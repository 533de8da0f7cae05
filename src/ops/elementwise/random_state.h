// The numbers of tessel's random operators: NumPy's legacy generator,
// numpy.random.RandomState(seed) (MT19937; doubles of 53 random bits; normals by the polar
// method), run on the host at compile time. A seeded node thus gives the numbers NumPy gives
// for its seed, which are those of the ONNX reference implementation and of the node
// suite's expected outputs; a node's draws are constants of the compiled model, the same at
// every run.
#pragma once

#include <cstdint>
#include <optional>
#include <random>

#include "graph/graph.h"

namespace tessel::ops::elementwise {

class RandomState {
 public:
  /// NumPy's RandomState(seed) for a seed in [0, 2^32).
  explicit RandomState(uint32_t seed) : engine_(seed) {}

  /// random_sample(): a double in [0, 1) from two 32-bit words (27 and 26 of their bits).
  double uniform();
  /// standard_normal(): the polar method draws pairs; the second of a pair is the next call's.
  double standard_normal();

 private:
  std::mt19937 engine_;  // seeded as NumPy's init_genrand
  std::optional<double> pending_normal_;
};

/// The seed of a random node: its attribute 'seed' (a float, or Dropout's int) taken modulo
/// 2^32, or, without one, a hash of its first output's name (two unseeded nodes draw apart;
/// a model draws the same numbers every time it is compiled).
uint32_t random_seed(const graph::Node& node);

}  // namespace tessel::ops::elementwise
