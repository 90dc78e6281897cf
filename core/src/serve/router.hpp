#pragma once
// What each route of `cmfpipe serve` answers (docs/serve.md). The CPU-bound part of a request (the
// body's JSON, render, parse, processors, adapters) runs on the Host's pool; `done` gets the
// answer there, exactly once: nothing when the answer was streamed to the client already.
#include <array>
#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "cmfpipe/core/host/answer_bound.hpp"
#include "cmfpipe/core/host/async.hpp"
#include "cmfpipe/core/host/prompt_catalog.hpp"
#include "cmfpipe/core/serve/server.hpp"
#include "cmfpipe/core/tracing.hpp"
#include "http_answer.hpp"
#include "inline_callback.hpp"
#include "local_work.hpp"
#include "metrics.hpp"
#include "proxy.hpp"

namespace cmfpipe::serve {

// Lines written whole from any thread: the decision log, failures without a client to go to.
class LogSink {
  public:
    explicit LogSink(std::ostream& out) : out_(out) {}
    void line(std::string_view text);

  private:
    std::mutex mutex_;
    std::ostream& out_;
};

// The path and the decoded query parameters of a request target.
struct Target {
    std::string path;
    std::vector<std::pair<std::string, std::string>> query;
    const std::string* param(std::string_view name) const;
};
// ValueError for a malformed percent escape.
Target parse_target(std::string_view target);

// POST /admin/reload: who may call it, and what it calls (Server::reload).
struct AdminRoute {
    std::string token;  // "": the route answers 404
    bool remote = false;
    std::function<Server::ReloadOutcome()> reload;
};

class Router {
  public:
    // Called once with the answer (nothing: streamed); kept inline, no allocation a request.
    using Done = InlineCallback<std::optional<Response>>;

    Router(std::shared_ptr<host::Host> host, Served served, Metrics& metrics, LogSink& log,
           std::shared_ptr<const tracing::Tracer> tracer,
           std::map<std::string, std::unique_ptr<Upstream>> upstreams,
           StreamGuardOptions stream_options, AdminRoute admin);
    ~Router();

    // Serves `served` from now on (requests under way keep what they started with); returns
    // its generation.
    std::uint64_t replace(Served served);
    // The generation served now.
    std::uint64_t generation() const { return loaded_.load()->generation; }

    static Metrics::Route route_of(std::string_view path);
    // Whether `route` is answered by the upstream (the proxy's routes).
    static bool proxied(Metrics::Route route);

    // `unready`: a stop was asked for (GET /health and /ready answer 503 then). `loopback_peer`:
    // the client connected from this machine (the admin route's default condition).
    // `answer_bound`: a prompt route's answer is refused with 413 past it. `executor`: the
    // connection's, where a proxied request's I/O runs; `client` streams a proxied answer there;
    // `cancellation` fires when the client goes away.
    void handle(Request&& request, const std::string& request_id, bool unready, bool loopback_peer,
                const host::AnswerBound& answer_bound, const boost::asio::any_io_executor& executor,
                std::shared_ptr<ClientStream> client, std::shared_ptr<Cancellation> cancellation,
                Done done);
    // Blocks until no work of a request is left on the pool (the server's last step: the work
    // refers to this router).
    void wait_idle() const;
    // No work of a request is left on the pool or in a proxy coroutine.
    bool idle() const;
    // wait_idle for at most `time`; false when work is still left then.
    bool wait_idle_for(std::chrono::milliseconds time) const;

  private:
    // What is served, with what is made of it once.
    struct Loaded {
        Served served;
        std::string plugins;  // GET /v1/plugins
        std::uint64_t generation = 0;
    };
    Response run_prompt(const Loaded& loaded, const Request& request, const Target& target,
                        const std::string& request_id, const host::AnswerBound& bound) const;
    Response process(const host::Service& service, const Request& request, const Target& target,
                     const std::string& request_id) const;
    static Response parse_output(const host::Service& service, const Request& request,
                                 const Target& target);
    void admin_reload(const Request& request, bool loopback_peer, Done done);
    // One more request whose work is under way off the connection (on the pool or a proxy
    // coroutine), and one less.
    void work_started();
    void work_finished();
    // Every decision to the log (with the request id) and to the metrics.
    void record(const std::vector<pipeline::Decision>& decisions, std::string_view route,
                const std::string& request_id) const;

    std::shared_ptr<host::Host> host_;
    std::atomic<std::shared_ptr<const Loaded>> loaded_;
    std::mutex replace_mutex_;  // one replace at a time, so generations count up
    Metrics& metrics_;
    LogSink& log_;
    std::shared_ptr<const tracing::Tracer> tracer_;
    AdminRoute admin_;
    std::unique_ptr<Proxy> proxy_;
    mutable std::mutex idle_mutex_;
    mutable std::condition_variable idle_;
    std::atomic<std::size_t> on_pool_{0};  // requests whose work is on the pool or a coroutine
    // What the runs of the routes served here (prompts, process, parse-output) have cost: a
    // small body of a route whose runs are cheap runs on the I/O thread, without the pool's hop.
    std::array<MeasuredCost, 3> local_costs_;
};

}  // namespace cmfpipe::serve
