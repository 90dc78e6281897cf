// Reading limit overrides from renderer options.
#include "limits.hpp"

#include "cmfpipe/errors.hpp"

namespace cmfpipe::jinja2 {

Limits Limits::from_json(const Json& overrides) {
    Limits l;
    if (overrides.is_null()) return l;
    if (!overrides.is_object()) throw ValueError("jinja2 option 'limits' must be an object");
    for (const auto& [key, value] : overrides.items()) {
        if (!value.is_number_integer() || value.get<long long>() < 0)
            throw ValueError("jinja2 limit '" + key + "' must be a non-negative integer");
        auto n = value.get<unsigned long long>();
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
