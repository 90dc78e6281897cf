#include "values.hpp"

namespace cmfpipe::mustache {

bool is_truthy(const Json& value) {
    switch (value.type()) {
        case Json::value_t::null:
            return false;
        case Json::value_t::boolean:
            return value.get<bool>();
        case Json::value_t::number_integer:
            return value.get<std::int64_t>() != 0;
        case Json::value_t::number_unsigned:
            return value.get<std::uint64_t>() != 0;
        case Json::value_t::number_float:
            return value.get<double>() != 0.0;
        case Json::value_t::string:
            return !value.get_ref<const std::string&>().empty();
        case Json::value_t::array:
            return !value.empty();
        default:
            return true;
    }
}

void append_text(const Json& value, std::string& out) {
    switch (value.type()) {
        case Json::value_t::null:
            return;
        case Json::value_t::string:
            out.append(value.get_ref<const std::string&>());
            return;
        case Json::value_t::boolean:
            out.append(value.get<bool>() ? "true" : "false");
            return;
        case Json::value_t::number_integer:
            out.append(std::to_string(value.get<std::int64_t>()));
            return;
        case Json::value_t::number_unsigned:
            out.append(std::to_string(value.get<std::uint64_t>()));
            return;
        default:
            out.append(value.dump());
            return;  // floats (shortest round-trip form), objects, arrays
    }
}

}  // namespace cmfpipe::mustache
