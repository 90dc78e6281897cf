#pragma once
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "cmfpipe/json.hpp"
#include "cmfpipe/stream_guard.hpp"

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

    // Bodies a proxy passes on (cmfpipe serve's /v1/chat/completions and /v1/messages): the
    // conversation is read out as CMF, runs through the processors, and is written back into the
    // body with every other field left as it was. Provider API adapters implement them; the
    // defaults throw InvokerError ("adapter ... does not read provider bodies").
    //
    // A client's request body (e.g. chat completions {"model", "messages", "tools", ...}) -> its
    // conversation as CMF messages: instructions, text, images, tool calls and tool results.
    virtual std::vector<cmf::Message> request_messages(const Json& body, const Json& options) const;
    // `body` with its conversation replaced by `messages`, every other field kept:
    // with_request_messages(b, request_messages(b, o), o) == b for every body request_messages
    // reads.
    virtual Json with_request_messages(const Json& body, const std::vector<cmf::Message>& messages,
                                       const Json& options) const;
    // A provider's response body (not streamed) with its output replaced by `messages` (what
    // from_wire read from it, after the llm_output processors); id, usage and the rest kept.
    virtual Json with_response_messages(const Json& body, const std::vector<cmf::Message>& messages,
                                        const Json& options) const;
    // The provider's answer to a streamed request `body` ("stream": true), guarded event by event
    // (stream_guard.hpp). The default throws InvokerError.
    virtual std::unique_ptr<GuardedStream> guard_stream(const Json& body, StreamGuard guard,
                                                        const StreamGuardOptions& stream_options,
                                                        const Json& options) const;
};

}  // namespace cmfpipe
