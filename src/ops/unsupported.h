// Why an ONNX operator that tessel does not compile is missing: one line per family, used
// in the compile error that names the unsupported operator.
#pragma once

#include <string>

namespace tessel::ops {

/// The reason `op_type` (ONNX domain) is not supported, e.g. "its output shape depends on
/// input values"; a generic reason for operators not in the list.
std::string unsupported_reason(const std::string& op_type);

}  // namespace tessel::ops
