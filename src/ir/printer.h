// Text form of loop IR: readable and stable (golden tests compare it).
//
// Variables print by name hint; distinct variables sharing a hint get suffixes (i, i_1)
// in order of first appearance, so the text is deterministic.
#pragma once

#include <iosfwd>
#include <string>

#include "ir/stmt.h"

namespace tessel::ir {

std::string to_string(const Expr& e);
std::string to_string(const Stmt& s);
std::string to_string(const PrimFunc& f);

std::ostream& operator<<(std::ostream& os, const Expr& e);
std::ostream& operator<<(std::ostream& os, const Stmt& s);
std::ostream& operator<<(std::ostream& os, const PrimFunc& f);

}  // namespace tessel::ir
