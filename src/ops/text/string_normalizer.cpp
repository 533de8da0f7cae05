// StringNormalizer: stop-word removal and case change on a [C] or [1, C] string tensor, run
// by the runtime as a step of its own (runtime/string_ops.h): its output extent depends on
// how many elements are stop words.
#include <algorithm>
#include <cctype>

#include "ops/data_dependent_types.h"
#include "ops/registry.h"

namespace tessel::ops {
namespace {

using graph::Attribute;
using graph::AttrKind;

/// The language part of a locale name ("tr" of "tr_TR.UTF-8"), in lower case.
std::string language_of(const std::string& locale) {
  std::string language = locale.substr(0, locale.find_first_of("_-.@"));
  for (char& c : language) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return language;
}

std::optional<DataDependentStep> normalizer_step(const OpContext& ctx) {
  std::string action = ctx.attr_string("case_change_action");
  int64_t case_action = action == "NONE" ? 0 : action == "LOWER" ? 1 : action == "UPPER" ? 2 : -1;
  if (case_action < 0)
    ctx.fail("attribute 'case_change_action' is '" + action + "'; expected LOWER, UPPER or NONE");
  // Turkish, Azeri and Lithuanian change the case of some letters their own way; every
  // other locale maps as Unicode's default table does, which the runtime applies.
  std::string language = language_of(ctx.attr_string("locale"));
  if (language == "tr" || language == "az" || language == "lt")
    ctx.fail("attribute 'locale' is '" + ctx.attr_string("locale") +
             "', whose case rules differ "
             "from Unicode's default mapping, the only one tessel applies");
  std::vector<std::string> stop_words;
  if (ctx.has_attr("stopwords")) stop_words = ctx.attr_strings("stopwords");
  return DataDependentStep{runtime::StepKind::StringNormalizer,
                           {case_action, ctx.attr_int("is_case_sensitive") != 0 ? 1 : 0},
                           std::move(stop_words)};
}

}  // namespace

void register_text_ops(OpRegistry& registry) {
  OpDef def;
  def.name = "StringNormalizer";
  def.since_version = 10;
  def.attributes = {{"case_change_action", AttrKind::String, Attribute::of_string("NONE")},
                    {"is_case_sensitive", AttrKind::Int, Attribute::of_int(0)},
                    {"locale", AttrKind::String, Attribute::of_string("")},
                    {"stopwords", AttrKind::Strings, std::nullopt}};
  def.pattern = PatternKind::Opaque;
  def.infer = [](const OpContext& ctx) { return largest_outputs(ctx, *normalizer_step(ctx)); };
  def.data_dependent = normalizer_step;
  registry.add(std::move(def));
}

}  // namespace tessel::ops
