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

// Turns rendered text into CMF messages.
class Parser {
  public:
    virtual ~Parser();
    // Called on the template before it is rendered, so a parser can mark what the author wrote
    // (strict mode puts the request's nonce on role markers). The default returns it unchanged.
    virtual std::string prepare_template(std::string_view template_text, const Json& options,
                                         RequestContext& request) const;
    virtual std::vector<cmf::Message> parse(std::string_view text, const Json& options,
                                            const RequestContext& request) const = 0;
};

}  // namespace cmfpipe
