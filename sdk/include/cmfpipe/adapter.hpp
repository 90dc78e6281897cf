#pragma once
#include <functional>
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
    // The same messages handed to `sink` one at a time, for a caller that writes each out and
    // lets it go, so a long completion is never held whole. A completion that fails fails before
    // the first message is handed over. By default from_wire's messages; an adapter that can
    // read message by message overrides it.
    virtual void from_wire_each(std::string_view completion, const Json& options,
                                const std::function<void(cmf::Message)>& sink) const;
};

}  // namespace cmfpipe
