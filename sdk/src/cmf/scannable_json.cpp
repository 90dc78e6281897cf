#include "scannable_json.hpp"

namespace cmfpipe::cmf::detail {
namespace {

void write(const Json& value, std::string& out) {
    switch (value.type()) {
        case Json::value_t::object: {
            out += '{';
            bool first = true;
            for (const auto& [key, item] : value.items()) {
                if (!first) out += ", ";
                first = false;
                out += Json(key).dump(-1, ' ', false, Json::error_handler_t::replace);
                out += ": ";
                write(item, out);
            }
            out += '}';
            return;
        }
        case Json::value_t::array: {
            out += '[';
            bool first = true;
            for (const auto& item : value) {
                if (!first) out += ", ";
                first = false;
                write(item, out);
            }
            out += ']';
            return;
        }
        default:
            out += value.dump(-1, ' ', false, Json::error_handler_t::replace);
    }
}

}  // namespace

std::string scannable_json(const Json& value) {
    std::string out;
    write(value, out);
    return out;
}

}  // namespace cmfpipe::cmf::detail
