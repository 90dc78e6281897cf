#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/json.hpp"
#include "cmfpipe/request.hpp"

namespace cmfpipe {
namespace cmf {
class Message;
}

// How much of a line a role marker must cover (Parser::matches_role_marker).
enum class MarkerFit {
    whole_line,  // the line is a role marker: the parser opens a message there
    line_start,  // the line opens with one, whatever follows the colon (`system: text`)
};

// Turns rendered text into CMF messages.
class Parser {
  public:
    virtual ~Parser();
    // The parser's role-marker grammar; the host keeps no copy of it and asks here. `line` has
    // no "\n". whole_line: in strict mode the host keeps such lines of the (prepared) template
    // away from the renderer (see renderer.hpp). line_start: a strict input whose value has such
    // a line is refused (renderSegments). A parser without role markers keeps the default: false.
    virtual bool matches_role_marker(std::string_view line, MarkerFit fit) const;
    // Called on the template before it is rendered, so a parser can mark what the author wrote
    // (strict mode puts the request's nonce on role markers). The default returns it unchanged.
    // It keeps the template's lines: one line in, one line out. In strict mode the host hands it
    // only the lines matches_role_marker(whole_line) accepts, every other line empty (their text
    // goes to the renderer as written), and keeps the rest of the template for later requests.
    virtual std::string prepare_template(std::string_view template_text, const Json& options,
                                         RequestContext& request) const;
    virtual std::vector<cmf::Message> parse(std::string_view text, const Json& options,
                                            const RequestContext& request) const = 0;
};

}  // namespace cmfpipe
