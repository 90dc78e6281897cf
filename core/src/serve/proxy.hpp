#pragma once
// The provider-compatible routes of `cmfpipe serve`: POST /v1/chat/completions and /v1/responses
// (OpenAI, upstream "openai") and POST /v1/messages (Anthropic, upstream "anthropic"), and the
// routes SDKs call besides (provider_routes.hpp: models, embeddings, count_tokens). The client's
// request body is read into CMF by the provider's adapter, passes the llm_input processors (a stop
// answers 403 in the provider's error shape and nothing reaches the upstream; a modification is
// what the upstream receives), goes to the upstream; its answer is read back into CMF, passes the
// llm_output processors, and returns in the provider's form with every other field as the upstream
// sent it. A streamed request ("stream": true) is answered as the upstream's events come, each
// guarded by the provider's adapter (cmfpipe/stream_guard.hpp); a client that goes away ends the
// upstream call.
// Boost 1.74's awaitable.hpp uses std::exchange without including <utility>.
#include <utility>

#include <boost/asio/awaitable.hpp>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "client_stream.hpp"
#include "cmfpipe/adapter.hpp"
#include "cmfpipe/core/host/async.hpp"
#include "cmfpipe/stream_guard.hpp"
#include "http_answer.hpp"
#include "inline_callback.hpp"
#include "local_work.hpp"
#include "metrics.hpp"
#include "upstream.hpp"

namespace cmfpipe::serve {

class Proxy {
  public:
    // Each decision of a run, with the request id (the router's decision log and metrics).
    using Record = std::function<void(const std::vector<pipeline::Decision>&, std::string_view,
                                      const std::string&)>;

    Proxy(std::shared_ptr<host::Host> host,
          std::map<std::string, std::unique_ptr<Upstream>> upstreams, Metrics& metrics,
          Record record, StreamGuardOptions stream_options);
    ~Proxy();

    struct Provider {
        Metrics::Route route;
        std::string adapter;   // the adapter kind that reads and writes its bodies
        std::string upstream;  // the --upstream NAME it goes to
        std::string path;      // below the upstream's base path
        // What the adapter is told of every body: the one API this route speaks (a Responses
        // body on the Chat Completions route is refused, not read by its shape).
        Json adapter_options;
        // What of the request passes llm_input: its conversation (read by the adapter), the text
        // inputs of an embeddings request, or nothing (a GET has no body).
        enum class Input { conversation, embedding_inputs, none };
        Input input = Input::conversation;
        // The answer passes llm_output (a conversation's); else it goes back as it came.
        bool guards_answer = true;
        http::verb method = http::verb::post;
        // The client's target past the route (a model id, a query) follows `path` upstream.
        bool takes_target_tail = false;

        // The provider's own error shape, so that its SDKs raise their usual exceptions.
        Response error(http::status status, std::string_view type, std::string_view code,
                       std::string_view message) const;
    };

    // The provider that answers `request` on `route`; nullptr when no upstream is configured for
    // it. /v1/models goes to "anthropic" when the request has an anthropic-version header, else to
    // "openai" (to whichever of the two is configured when only one is).
    const Provider* provider_for(Metrics::Route route, const Request& request) const;
    // The --upstream options that would serve `route`, for the 404 that says none is configured.
    static std::string missing_upstream_hint(Metrics::Route route);
    // Takes the answer once it is made (nothing: it was streamed).
    using Deliver = InlineCallback<std::optional<Response>, 80>;
    // Hands `deliver` the answer to give (a failure as the provider spells it), or nothing when
    // it was streamed to `client` already: exactly once, before the request's objects (its
    // fields and body, the upstream's answer) are destroyed, so that the client's write does not
    // wait for them. `service`: the adapters and processors the request started with, used to
    // its end (a reload does not change them under it). `path`: below the upstream's base path.
    // `cancellation` fires when the client goes away.
    boost::asio::awaitable<void> answer(const Provider& provider,
                                        std::shared_ptr<const host::Service> service,
                                        Request request, std::string path, std::string request_id,
                                        std::shared_ptr<ClientStream> client,
                                        std::shared_ptr<Cancellation> cancellation,
                                        Deliver deliver);
    // What answer() threw, as `provider` spells an error.
    static Response failure_answer(const Provider& provider, std::exception_ptr error);

  private:
    // The processors' verdict on a streamed turn so far (the guard each GuardedStream calls);
    // `decisions` keeps the latest.
    struct StreamDecisions {
        std::vector<pipeline::Decision> last;
    };
    struct Prepared {
        std::string body;                 // what the upstream receives
        std::optional<Response> refusal;  // set: the answer, and nothing goes to the upstream
        std::shared_ptr<const Adapter> adapter;
        std::unique_ptr<GuardedStream> guarded;        // set for a streamed request
        std::shared_ptr<StreamDecisions> decisions;    // the guard's latest, for a streamed request
        std::shared_ptr<const host::Service> service;  // what the request started with
        // What the processors made of the request and of the answer (not_streamed_here): kept
        // to be destroyed with the exchange, after the client's write, off the critical path.
        std::optional<pipeline::PipelineResult> spent_request, spent_answer;
    };
    Prepared prepare(const Provider& provider, const std::shared_ptr<const host::Service>& service,
                     std::string& body, const std::string& request_id) const;
    // `spent`, when given, takes what the processors made of the answer (Prepared::spent_answer).
    Response finish(const Provider& provider, const host::Service& service,
                    Response& upstream_answer, const std::string& request_id,
                    std::optional<pipeline::PipelineResult>* spent = nullptr) const;
    // not_streamed's answer when it takes no hop to the pool (an answer that goes back as it
    // came, or a small body): made at once, without a coroutine frame; nothing for a large body.
    std::optional<Response> not_streamed_here(const Provider& provider,
                                              const host::Service& service, Upstream& upstream,
                                              Response& upstream_answer,
                                              const std::string& request_id,
                                              std::optional<pipeline::PipelineResult>* spent) const;
    // The upstream's answer to a streamed request, read and guarded as it comes
    // (proxy_stream.cpp).
    boost::asio::awaitable<std::optional<Response>> stream(
        const Provider& provider, Upstream& upstream, std::string path, Prepared prepared,
        Upstream::Headers headers, ClientStream& client, Cancellation& cancellation,
        std::string request_id);
    static GuardVerdict guard(const host::Service& service, std::vector<cmf::Message> messages,
                              StreamDecisions& decisions);
    // What the streams' guarded steps cost a byte: where a read's step runs (local_work.hpp).
    StepCost stream_steps_;
    // An answer the upstream gave that is not its stream (an error status, or a whole body).
    // `upstream_answer` is the caller's: what is left of it dies with the caller's objects.
    boost::asio::awaitable<Response> not_streamed(
        const Provider& provider, const std::shared_ptr<const host::Service>& service,
        Upstream& upstream, Response&& upstream_answer, const std::string& request_id);

    std::shared_ptr<host::Host> host_;
    std::map<std::string, std::unique_ptr<Upstream>> upstreams_;
    Metrics& metrics_;
    Record record_;
    StreamGuardOptions stream_options_;
};

// An answer the upstream sent that its adapter cannot read (not the provider's shape, nested past
// the limits; in a stream, an event its guard cannot read) is the upstream's failure, not the
// client's: 502 upstream_broken, never a 400. `what`: why it cannot be read.
UpstreamFailure unreadable_answer(const Proxy::Provider& provider, std::string_view what);

}  // namespace cmfpipe::serve
