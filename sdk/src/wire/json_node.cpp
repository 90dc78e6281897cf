#include "cmfpipe/wire/json_node.hpp"

#include "cmfpipe/errors.hpp"
#include "cmfpipe/json_parse.hpp"

namespace cmfpipe::wire {

Json parse_wire_json(std::string_view text, const std::string& what) {
    try {
        return parse_json(text, "<" + what + ">");
    } catch (const LimitExceeded&) {
        throw;
    } catch (const ValueError& e) {
        constexpr std::string_view prefix = "invalid JSON: ";
        std::string reason = e.message();
        if (reason.rfind(prefix, 0) == 0) reason.erase(0, prefix.size());
        throw ValueError(what + " is not JSON: " + reason, e.where());
    }
}

}  // namespace cmfpipe::wire
