#pragma once
// The family table: what a family's models write that their template does not show (reasoning
// markers the template never renders, a call format it never renders), as data:
// plugins/chat_template/families.json, compiled into the plugin (family_table_text). Each row
// names the family it serves, is keyed on text the template contains, may also require what the
// analysis found, and sets analysis fields by the dotted keys `cmfpipe analyze-template` prints.
// A template that no row matches keeps what the generic analysis found.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cmfpipe/json.hpp"
#include "cmfpipe/renderer.hpp"
#include "template_analysis.hpp"

namespace cmfpipe::chat_template {

// The analysis's steps, in the order analyze_template runs them (analysis_steps.hpp). A row
// applies right after the last step whose fields it reads or writes, so the steps after it see
// what it set (the prefill step looks for the reasoning markers a row gave).
enum class AnalysisStep { reasoning, turn, content, tools };

struct FamilyRow {
    std::string family;  // the models the row serves, as the note names them
    // when: every text of template_contains and one of template_contains_any (if any) is in the
    // template, and each analysis field (dotted key) already has the value given.
    std::vector<std::string> template_contains, template_contains_any;
    std::vector<std::pair<std::string, Json>> analysis_is;
    std::vector<std::pair<std::string, Json>> set;  // the fields the row writes, in order
    std::string note;                               // why; the analysis notes "family F: note"
    AnalysisStep step = AnalysisStep::reasoning;    // derived from the keys above
};

// The table's rows from its JSON text (see families.json for the format). A malformed table is a
// ValueError naming `source` and the row: a key the analysis does not print, a value of the
// wrong type, a row without a template text to match, more than max_family_rows rows.
std::vector<FamilyRow> parse_family_table(std::string_view json_text, const std::string& source);

// The issue that asked for the table bounds it: a rule per model is the last resort.
inline constexpr std::size_t max_family_rows = 10;

// families.json as the build embedded it, and its rows (parsed once).
std::string_view family_table_text();
const std::vector<FamilyRow>& family_table();

// Whether `row` applies to a template with this text, given what the analysis found so far.
bool family_row_matches(const FamilyRow& row, std::string_view template_text,
                        const TemplateAnalysis& analysis);

// Applies the rows of `step` that match, in table order, each seeing what the ones before it set.
void apply_family_rows(const std::vector<FamilyRow>& rows, AnalysisStep step,
                       std::string_view template_text, TemplateAnalysis& analysis);

// analyze_template with rows of the caller's (a test's) instead of the built-in table.
TemplateAnalysis analyze_template(const Renderer& renderer, const AnalysisInputs& inputs,
                                  const std::vector<FamilyRow>& rows);

}  // namespace cmfpipe::chat_template
