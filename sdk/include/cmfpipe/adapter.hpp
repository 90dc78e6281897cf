#pragma once
#include <string_view>
#include <vector>

#include "cmfpipe/json.hpp"

namespace cmfpipe {
namespace cmf {
class Message;
}

// Both directions between CMF and what a provider or a model reads and returns.
class Adapter {
  public:
    virtual ~Adapter();
    // messages -> a provider request body (a JSON object) or a model prompt (a JSON string).
    // agent: the loaded agent as JSON (model {id, provider, apiType, options}, tools, outputs).
    virtual Json to_wire(const std::vector<cmf::Message>& messages, const Json& agent,
                         const Json& options) const = 0;
    // A completion (a JSON response body, streamed chunks, or raw model text) -> CMF messages.
    virtual std::vector<cmf::Message> from_wire(std::string_view completion,
                                                const Json& options) const = 0;
};

}  // namespace cmfpipe
