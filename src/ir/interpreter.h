// A checking reference interpreter for loop IR: evaluates expressions and runs PrimFuncs on
// host memory, following the semantics written at the top of ir/expr.h exactly.
//
// It is the independent reference that pass tests compare against (run the IR before and
// after a pass on the same data; outputs must match) and it checks what compiled code cannot:
//  - every Load/Store index is checked against the buffer's shape (each dimension) and
//    against the size of the memory behind the buffer's data variable;
//  - integer division or modulo by zero, a float-to-int cast out of the target's range,
//    and an unbound variable are CompileErrors naming the expression.
// Values: integers are held as int64 wrapped to the type's width (uint64 as its bit
// pattern), bool as 0/1, floats as double rounded to the type after every operation
// (float32 arithmetic is therefore exact IEEE float32). Min/Max of floats follow
// fmin/fmax; `round` rounds half to even; `fma` rounds once (in float32 for 16-bit
// floats). Cast to bool is `!= 0`.
// Memory: elements are stored in their natural C layout (bool as one byte; float16 as
// _Float16; bfloat16 as the high half of a float32). Allocate'd buffers start filled with
// all-one bytes (NaN for floats, -1 for signed ints) so reads of unwritten memory show.
// Loops of every kind run serially, in order. A Prefetch only checks that its offset lies
// inside the buffer (and reports it to Env::on_prefetch).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/stmt.h"

namespace tessel::ir {

/// A runtime value: `dtype.lanes` lanes, integer or float as `dtype` says.
struct Value {
  union Lane {
    int64_t i;
    double f;
  };
  DataType dtype;
  std::vector<Lane> lanes;

  /// A scalar (or broadcast, when dtype has lanes) integer / bool value, wrapped to dtype.
  static Value from_int(DataType dtype, int64_t v);
  /// A scalar (or broadcast) float value, rounded to dtype.
  static Value from_float(DataType dtype, double v);
  /// Lane `lane` as an integer (dtype must be an integer or bool type).
  int64_t int_at(int lane = 0) const;
  /// Lane `lane` as a double (dtype must be a float type).
  double float_at(int lane = 0) const;
};

/// Values of variables and the memory behind buffer data variables.
class Env {
 public:
  /// A region of host memory holding `size` elements of `dtype`.
  struct Memory {
    void* base = nullptr;
    int64_t size = 0;
    DataType dtype;
  };

  /// Binds `var` to `value` (replacing any previous binding).
  void bind(const Var& var, Value value);
  void bind(const VarNode* var, Value value);
  void unbind(const VarNode* var);
  /// The value of `var`; CompileError when unbound.
  const Value& lookup(const VarNode* var) const;
  /// The value of `var`, or null when unbound.
  const Value* find(const VarNode* var) const;

  /// Makes `data` (a buffer's data variable) point at `memory`.
  void bind_memory(const VarNode* data, Memory memory);
  void unbind_memory(const VarNode* data);
  /// The memory behind `data`; CompileError naming `buffer_name` when none is bound.
  const Memory& memory(const VarNode* data, const std::string& buffer_name) const;
  /// The memory behind `data`, or null when none is bound.
  const Memory* find_memory(const VarNode* data) const;

  /// Called for every Prefetch run (after its offset was checked to lie inside the buffer),
  /// with the buffer's name and the offset: lets tests see what a kernel prefetches.
  std::function<void(const std::string& buffer, int64_t offset)> on_prefetch;

 private:
  std::unordered_map<const VarNode*, Value> values_;
  std::unordered_map<const VarNode*, Memory> memories_;
};

/// Evaluates `e` in `env`. Reduce cannot be evaluated (it never reaches loop IR).
Value evaluate(const Expr& e, const Env& env);

/// Runs `f` with args[i] the data pointer of f.params[i] (elements of the parameter's
/// dtype, row-major in the parameter's shape). `env` may bind variables used in parameter
/// shapes (symbolic dimensions). CompileError on any checked fault.
void run(const PrimFunc& f, const std::vector<void*>& args, Env env = {});

}  // namespace tessel::ir
