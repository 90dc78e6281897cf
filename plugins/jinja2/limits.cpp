// Reading limit overrides from renderer options.
#include "limits.hpp"

#include <cstdint>
#include <limits>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/json_reader.hpp"

namespace cmfpipe::jinja2 {

Limits Limits::from_json(const Json& overrides) {
    Limits l;
    if (overrides.is_null()) return l;
    // "jinja2 option 'limits': max_output_bytes: expected an integer from 0 to ..., got -1"
    const JsonReader limits("jinja2 option 'limits'", overrides, "");
    for (const auto& [key, value] : limits.members()) {
        const auto n = static_cast<unsigned long long>(
            value.integer_in(0, std::numeric_limits<std::int64_t>::max()));
        if (key == "max_template_bytes")
            l.max_template_bytes = n;
        else if (key == "max_output_bytes")
            l.max_output_bytes = n;
        else if (key == "max_iterations" || key == "max_loop_iterations")
            l.max_iterations = n;
        else if (key == "max_recursion_depth")
            l.max_recursion_depth = static_cast<int>(std::min<unsigned long long>(n, 100000));
        else if (key == "max_nesting_depth")
            l.max_nesting_depth = static_cast<int>(std::min<unsigned long long>(n, 100000));
        else if (key == "max_string_bytes")
            l.max_string_bytes = n;
        else if (key == "max_list_items")
            l.max_list_items = n;
        else if (key == "max_allocated_bytes")
            l.max_allocated_bytes = n;
        else
            throw ValueError("unknown jinja2 limit '" + key + "'");
    }
    return l;
}

Json Limits::to_json() const {
    return Json{
        {"max_template_bytes", max_template_bytes}, {"max_output_bytes", max_output_bytes},
        {"max_iterations", max_iterations},         {"max_recursion_depth", max_recursion_depth},
        {"max_nesting_depth", max_nesting_depth},   {"max_string_bytes", max_string_bytes},
        {"max_list_items", max_list_items},         {"max_allocated_bytes", max_allocated_bytes}};
}

}  // namespace cmfpipe::jinja2
