#include "cmfpipe/wire/json_node.hpp"

#include "cmfpipe/errors.hpp"

namespace cmfpipe::wire {

Json parse_wire_json(std::string_view text, const std::string& what) {
    try {
        return Json::parse(text.begin(), text.end());
    } catch (const Json::parse_error& e) {
        // e.byte is 1-based (the position just past the offending character).
        std::size_t offset = e.byte == 0 ? 0 : e.byte - 1;
        if (offset > text.size()) offset = text.size();
        int line = 1, column = 1;
        for (std::size_t i = 0; i < offset; ++i) {
            if (text[i] == '\n') {
                ++line;
                column = 1;
            } else {
                ++column;
            }
        }
        std::string reason = e.what();
        if (auto at = reason.find("syntax error"); at != std::string::npos)
            reason = reason.substr(at);
        throw ValueError(what + " is not JSON: " + reason,
                         SourceLocation{"<" + what + ">", line, column});
    }
}

}  // namespace cmfpipe::wire
