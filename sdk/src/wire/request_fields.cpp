// What of a request body the processors are shown (see request_fields.hpp).
#include "cmfpipe/wire/request_fields.hpp"

#include <algorithm>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/json_parse.hpp"
#include "cmfpipe/limits.hpp"

namespace cmfpipe::wire {

bool holds_text(const Json& value) {
    if (value.is_string()) return true;
    if (!value.is_structured()) return false;
    // The body was parsed under max_depth, so this recursion is bounded by it.
    return std::any_of(value.begin(), value.end(),
                       [](const Json& item) { return holds_text(item); });
}

void refuse_unshown_members(const WireNode& object, std::initializer_list<std::string_view> read) {
    object.object();
    for (const auto& [key, member] : object.json().items()) {
        if (std::find(read.begin(), read.end(), key) != read.end()) continue;
        if (holds_text(member)) {
            throw ValueError(object.what() + ": " + object.path_of(key) +
                             ": this member holds text the pipeline cannot show to its processors "
                             "(refused, never forwarded unseen)");
        }
    }
}

std::string arguments_shown_text(std::string_view raw, const std::string& where) {
    const JsonParse parsed = try_parse_json(raw);
    if (parsed.too_deep) {
        throw LimitExceeded(where + ": arguments nested deeper than " +
                            std::to_string(input_limits().max_depth) +
                            " levels (max_depth): they cannot be shown to the processors");
    }
    if (!parsed.value) return std::string(raw);
    return parsed.value->dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace cmfpipe::wire
