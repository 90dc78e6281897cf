#include "cmfpipe/limits.hpp"

#include <limits>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/json_reader.hpp"

namespace cmfpipe {

namespace {
// The stack-safety ceiling: each level costs a few frames in the recursive readers downstream.
constexpr std::int64_t kDeepestAllowed = 10'000;

InputLimits& current() {
    static InputLimits limits;
    return limits;
}
}  // namespace

InputLimits InputLimits::from_json(const Json& overrides) {
    InputLimits limits;
    JsonReader reader("limits", overrides);
    reader.only_fields({"max_depth", "max_input_bytes", "max_yaml_nodes"});
    if (auto v = reader.find("max_depth"))
        limits.max_depth = static_cast<std::size_t>(v->integer_in(1, kDeepestAllowed));
    if (auto v = reader.find("max_input_bytes"))
        limits.max_input_bytes =
            static_cast<std::size_t>(v->integer_in(1, std::numeric_limits<std::int64_t>::max()));
    if (auto v = reader.find("max_yaml_nodes"))
        limits.max_yaml_nodes =
            static_cast<std::size_t>(v->integer_in(1, std::numeric_limits<std::int64_t>::max()));
    return limits;
}

Json InputLimits::to_json() const {
    return Json{{"max_depth", max_depth},
                {"max_input_bytes", max_input_bytes},
                {"max_yaml_nodes", max_yaml_nodes}};
}

const InputLimits& input_limits() {
    return current();
}

void set_input_limits(const InputLimits& limits) {
    current() = limits;
}

void check_input_size(std::size_t size, const std::string& source, const InputLimits& limits) {
    if (size > limits.max_input_bytes) {
        throw LimitExceeded("input larger than " + std::to_string(limits.max_input_bytes) +
                                " bytes (max_input_bytes)",
                            SourceLocation{source, 0, 0});
    }
}

}  // namespace cmfpipe
