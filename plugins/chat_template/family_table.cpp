// The family table's loader and its one mechanism: match a row, set its fields, note it (see
// family_table.hpp; the rows are in families.json).
#include "family_table.hpp"

#include <algorithm>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/json_parse.hpp"

namespace cmfpipe::chat_template {
namespace {

// "tools.function.close" -> /tools/function/close, where to_json prints it.
Json::json_pointer pointer_of(std::string_view key) {
    std::string path = "/";
    for (const char c : key) path += c == '.' ? '/' : c;
    return Json::json_pointer(path);
}

// The step that settles the field named by `key` (the prefill step fills reasoning.prefill.*,
// after the markers).
AnalysisStep step_of(std::string_view key) {
    if (key.starts_with("reasoning.prefill.") || key.starts_with("turn."))
        return AnalysisStep::turn;
    if (key.starts_with("content.")) return AnalysisStep::content;
    if (key.starts_with("tools.")) return AnalysisStep::tools;
    return AnalysisStep::reasoning;
}

class RowReader {
  public:
    RowReader(const Json& row, std::string where) : row_(row), where_(std::move(where)) {}

    [[noreturn]] void refuse(const std::string& why) const {
        throw ValueError("chat_template: family table " + where_ + ": " + why);
    }

    std::string text(const Json& parent, const char* key) const {
        const auto it = parent.find(key);
        if (it == parent.end() || !it->is_string() || it->get<std::string>().empty())
            refuse(std::string("'") + key + "' must be a non-empty string");
        return it->get<std::string>();
    }

    std::vector<std::string> texts(const Json& when, const char* key) const {
        std::vector<std::string> out;
        const auto it = when.find(key);
        if (it == when.end()) return out;
        if (!it->is_array() || it->empty()) refuse(std::string("'") + key + "' must be a list");
        for (const Json& t : *it) {
            if (!t.is_string() || t.get<std::string>().empty())
                refuse(std::string("'") + key + "' must list non-empty strings");
            out.push_back(t.get<std::string>());
        }
        return out;
    }

    // The keys of an object, refusing any not in `allowed` (a misspelt key would silently
    // widen a row).
    void only_keys(const Json& object, const char* what,
                   std::initializer_list<std::string_view> allowed) const {
        if (!object.is_object()) refuse(std::string(what) + " must be an object");
        for (const auto& [key, value] : object.items())
            if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
                refuse(std::string(what) + " has an unknown key '" + key + "'");
    }

    FamilyRow read() const {
        only_keys(row_, "a row", {"family", "when", "set", "note"});
        FamilyRow out;
        out.family = text(row_, "family");
        out.note = text(row_, "note");
        const auto when = row_.find("when");
        if (when == row_.end()) refuse("'when' is missing");
        only_keys(*when, "'when'", {"template_contains", "template_contains_any", "analysis"});
        out.template_contains = texts(*when, "template_contains");
        out.template_contains_any = texts(*when, "template_contains_any");
        if (out.template_contains.empty() && out.template_contains_any.empty())
            refuse("'when' names no text the template contains (a row is keyed on one)");
        const Json printed = to_json(TemplateAnalysis{});
        if (const auto found = when->find("analysis"); found != when->end()) {
            if (!found->is_object()) refuse("'when.analysis' must be an object");
            for (const auto& [key, value] : found->items()) {
                if (!printed.contains(pointer_of(key)))
                    refuse("'when.analysis' names " + key + ", which the analysis does not print");
                out.analysis_is.emplace_back(key, value);
            }
        }
        const auto set = row_.find("set");
        if (set == row_.end() || !set->is_object() || set->empty())
            refuse("'set' must name the fields the row writes");
        TemplateAnalysis scratch;
        for (const auto& [key, value] : set->items()) {
            try {
                set_analysis_field(scratch, key, value);  // a bad key or value fails here
            } catch (const ValueError& e) {
                refuse(e.what());
            }
            out.set.emplace_back(key, value);
        }
        for (const auto* fields : {&out.analysis_is, &out.set})
            for (const auto& [key, value] : *fields) out.step = std::max(out.step, step_of(key));
        return out;
    }

  private:
    const Json& row_;
    std::string where_;
};

}  // namespace

std::vector<FamilyRow> parse_family_table(std::string_view json_text, const std::string& source) {
    const Json table = parse_json(json_text, source);
    const auto rows = table.is_object() ? table.find("rows") : table.end();
    if (rows == table.end() || !rows->is_array())
        throw ValueError("chat_template: family table " + source + ": 'rows' must be a list");
    if (rows->size() > max_family_rows)
        throw ValueError("chat_template: family table " + source + " has " +
                         std::to_string(rows->size()) + " rows, more than " +
                         std::to_string(max_family_rows));
    std::vector<FamilyRow> out;
    for (std::size_t i = 0; i < rows->size(); ++i)
        out.push_back(RowReader((*rows)[i], source + " row " + std::to_string(i + 1)).read());
    return out;
}

const std::vector<FamilyRow>& family_table() {
    static const std::vector<FamilyRow> rows =
        parse_family_table(family_table_text(), "families.json");
    return rows;
}

bool family_row_matches(const FamilyRow& row, std::string_view template_text,
                        const TemplateAnalysis& analysis) {
    const auto contained = [&](const std::string& t) {
        return template_text.find(t) != std::string_view::npos;
    };
    if (!std::all_of(row.template_contains.begin(), row.template_contains.end(), contained))
        return false;
    if (!row.template_contains_any.empty() &&
        std::none_of(row.template_contains_any.begin(), row.template_contains_any.end(), contained))
        return false;
    if (row.analysis_is.empty()) return true;
    const Json found = to_json(analysis);
    return std::all_of(row.analysis_is.begin(), row.analysis_is.end(), [&](const auto& field) {
        return found.at(pointer_of(field.first)) == field.second;
    });
}

void apply_family_rows(const std::vector<FamilyRow>& rows, AnalysisStep step,
                       std::string_view template_text, TemplateAnalysis& analysis) {
    for (const FamilyRow& row : rows) {
        if (row.step != step || !family_row_matches(row, template_text, analysis)) continue;
        for (const auto& [key, value] : row.set) set_analysis_field(analysis, key, value);
        analysis.notes.push_back("family " + row.family + ": " + row.note);
    }
}

}  // namespace cmfpipe::chat_template
