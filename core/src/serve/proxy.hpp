#pragma once
// The provider-compatible routes of `cmfpipe serve`: POST /v1/chat/completions (OpenAI, upstream
// "openai") and POST /v1/messages (Anthropic, upstream "anthropic"). The client's request body is
// read into CMF by the provider's adapter, passes the llm_input processors (a stop answers 403 in
// the provider's error shape and nothing reaches the upstream; a modification is what the upstream
// receives), goes to the upstream; its answer is read back into CMF, passes the llm_output
// processors, and returns in the provider's form with every other field as the upstream sent it.
// Boost 1.74's awaitable.hpp uses std::exchange without including <utility>.
#include <utility>

#include <boost/asio/awaitable.hpp>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "cmfpipe/core/host/async.hpp"
#include "http_answer.hpp"
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
          Record record);
    ~Proxy();

    // Whether an upstream serves `route` (chat_completions: "openai", messages: "anthropic").
    bool serves(Metrics::Route route) const;
    boost::asio::awaitable<Response> answer(Metrics::Route route, Request request,
                                            std::string request_id);
    // What answer() threw, as the provider of `route` spells an error.
    static Response failure_answer(Metrics::Route route, std::exception_ptr error);

    struct Provider;

  private:
    struct Prepared;
    Prepared prepare(const Provider& provider, const std::string& body,
                     const std::string& request_id) const;
    Response finish(const Provider& provider, const Response& upstream_answer,
                    const std::string& request_id) const;

    std::shared_ptr<host::Host> host_;
    std::map<std::string, std::unique_ptr<Upstream>> upstreams_;
    Metrics& metrics_;
    Record record_;
};

}  // namespace cmfpipe::serve
