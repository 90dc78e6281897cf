// Jinja's builtin filters by name, with Python Jinja2 3.1 semantics; each group of filters lives
// in its own file (string, number, sequence, serialising) and registers its names here. An
// undefined subject behaves as Jinja's Undefined does: "" as a string, empty as a sequence.
#include "filters.hpp"

#include "filter_args.hpp"

namespace cmfpipe::jinja2 {
namespace {

const FilterTable& common_table() {
    static const FilterTable table = [] {
        FilterTable t;
        add_string_filters(t);
        add_number_filters(t);
        add_sequence_filters(t);
        add_serialising_filters(t);
        return t;
    }();
    return table;
}

}  // namespace

FilterFn find_filter(std::string_view name, Profile profile) {
    if (name == "tojson") return tojson_filter(profile);
    const auto& t = common_table();
    auto it = t.find(name);
    return it == t.end() ? nullptr : it->second;
}

}  // namespace cmfpipe::jinja2
