// Reading limit overrides with the sdk's strict reader, so the messages read like every other
// option check.
#include "limits.hpp"

#include <cstdint>
#include <limits>

#include "cmfpipe/json_reader.hpp"

namespace cmfpipe::mustache {

Limits read_limits(const Json& overrides, const Limits& defaults) {
    Limits l = defaults;
    if (overrides.is_null()) return l;
    const JsonReader limits("mustache option 'limits'", overrides, "");
    limits.only_fields({"max_template_bytes", "max_output_bytes", "max_iterations",
                        "max_partial_inclusions", "max_depth", "max_nesting_depth"});
    constexpr std::int64_t any_size = std::numeric_limits<std::int64_t>::max();
    for (const auto& [key, value] : limits.members()) {
        if (key == "max_depth") {
            l.max_depth = static_cast<int>(value.integer_in(1, Limits::depth_ceiling));
        } else if (key == "max_nesting_depth") {
            l.max_nesting_depth = static_cast<int>(value.integer_in(1, Limits::depth_ceiling));
        } else {
            const auto n = static_cast<std::size_t>(value.integer_in(0, any_size));
            if (key == "max_template_bytes") l.max_template_bytes = n;
            if (key == "max_output_bytes") l.max_output_bytes = n;
            if (key == "max_iterations") l.max_iterations = n;
            if (key == "max_partial_inclusions") l.max_partial_inclusions = n;
        }
    }
    return l;
}

}  // namespace cmfpipe::mustache
