// Python-style one-line JSON (see wire/json_text.hpp).
#include "cmfpipe/wire/json_text.hpp"

#include "cmfpipe/json_string_writer.hpp"

namespace cmfpipe::wire {

void dump_spaced(const Json& value, std::string& out) {
    switch (value.type()) {
        case Json::value_t::object: {
            out += '{';
            bool first = true;
            for (const auto& [key, item] : value.items()) {
                if (!first) out += ", ";
                first = false;
                append_json_string(out, key);
                out += ": ";
                dump_spaced(item, out);
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
                dump_spaced(item, out);
            }
            out += ']';
            return;
        }
        case Json::value_t::string:
            append_json_string(out, value.get_ref<const std::string&>());
            return;
        default:
            // The other scalars: nlohmann's spelling (shortest round-trip numbers).
            out += value.dump(-1, ' ', false, Json::error_handler_t::replace);
    }
}

std::string dump_spaced(const Json& value) {
    std::string out;
    dump_spaced(value, out);
    return out;
}

}  // namespace cmfpipe::wire
