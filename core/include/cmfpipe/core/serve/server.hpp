#pragma once
// `cmfpipe serve`: an HTTP/1.1 server (Boost.Beast, keep-alive) on the async Host
// (host/async.hpp). It keeps no state between requests, so any number of instances behind a load
// balancer serve the same prompts and pipeline. Routes and errors: docs/serve.md.
#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <string>

#include "cmfpipe/core/host/async.hpp"
#include "cmfpipe/core/host/prompt_catalog.hpp"
#include "cmfpipe/core/tracing.hpp"
#include "cmfpipe/stream_guard.hpp"

namespace cmfpipe::serve {

// What the server serves: the adapters and processors, and the prompts (null: no --prompts). Made
// at the start and again on each reload; a request uses the one it started with to its end.
struct Served {
    std::shared_ptr<const host::Service> service;
    std::shared_ptr<const host::PromptCatalog> prompts;
};
// Makes what is served from the configuration's files as they are now; a cmfpipe::Error when they
// do not load (the reload is then refused and what was served stays).
using ServedLoader = std::function<Served()>;

struct ServerOptions {
    std::string host = "127.0.0.1";
    unsigned short port = 8080;  // 0: a free one (Server::listen returns it)
    std::size_t max_body = 8 * 1024 * 1024;
    std::size_t max_header = 16 * 1024;
    // The largest answer a prompt route makes (its rendered text, its messages, its JSON); over
    // it: 413. A small body can expand into a large answer (a thread of many short messages).
    std::size_t max_answer = 4 * max_body;
    // Request bodies being read and answers not yet sent, all connections together; a body that
    // would take the server over it is refused with 503. 0: an eighth of the memory this process
    // may use (the machine's, or its cgroup's limit when that is less).
    std::size_t max_buffered = 0;
    std::size_t io_threads = 1;
    // After its last piece of work an I/O thread keeps polling its sockets (without sleeping) for
    // up to this long before it waits in the kernel: an answer or a request that comes within it
    // is taken without a wake-up (the latency of a lightly loaded server), for CPU spent polling.
    // Adaptive: the window is learnt from the gaps between pieces of work, between 0 and this
    // (polling through gaps shorter than it, sleeping at once when work comes seldom); else it is
    // always this. 0: it waits at once.
    std::chrono::microseconds busy_poll{200};
    bool busy_poll_adaptive = true;
    // The time a client has to send a whole request, counted from the end of the previous answer
    // (keep-alive idle time included), and to read an answer: a slow or silent client is closed.
    std::chrono::milliseconds client_timeout{30'000};
    // After SIGTERM/SIGINT (or stop()): /health and /ready answer 503 at once, and requests are
    // still served (each answer closing its connection) for this long, the time a load balancer
    // needs to see the 503 and send no more; then the listener closes.
    std::chrono::milliseconds drain_delay{5'000};
    // Once the listener has closed: the requests in flight get this long to finish.
    std::chrono::milliseconds grace{10'000};
    bool handle_signals = true;
    // The providers proxied to: "openai" (POST /v1/chat/completions) and "anthropic"
    // (POST /v1/messages) -> http:// or https:// base URL.
    std::map<std::string, std::string> upstreams;
    // Connect, send and the whole answer of one upstream call; over it: 504. For a streamed
    // answer, the longest silence between two whole events.
    std::chrono::milliseconds upstream_timeout{300'000};
    // The whole of one upstream call, streamed or not (the OpenAI SDKs' own default).
    std::chrono::milliseconds upstream_total_timeout{600'000};
    // Characters of a streamed text part held back until more comes, so that the llm_output
    // processors see a span (an e-mail address, a key) whole before any of it is sent.
    std::size_t stream_holdback = 64;
    // How a guarded stream ends when a processor stops it after part of the answer went out: as
    // the provider's own content filter (default), or with the provider's error event
    // (--stream-stop error-event). A stop before any of the answer went out is a 403 either way.
    StreamStop stream_stop = StreamStop::content_filter;
    // Certificates trusted for https upstreams besides the system's (a private CA).
    std::string upstream_ca;
    // POST /admin/reload answers requests bearing this token (Authorization: Bearer TOKEN); ""
    // turns the route off. From a loopback peer only, unless admin_remote.
    std::string admin_token;
    bool admin_remote = false;
};

class Server {
  public:
    // prompts may be null: /v1/prompts/{name} then answers 404. tracer may be null. log gets the
    // `listening on` line, the decision log (one JSON object a line, with the request id) and
    // failures that have no client to go to.
    Server(std::shared_ptr<host::Host> host, std::shared_ptr<const host::PromptCatalog> prompts,
           ServerOptions options, std::ostream& log, std::shared_ptr<const tracing::Tracer> tracer);
    ~Server();

    // Binds and listens; returns the port (the one picked when options.port is 0).
    unsigned short listen();
    // Accepts and serves until stop() or SIGTERM/SIGINT, then: /health 503, serving on for the
    // drain delay, the listener closed, idle connections closed, the requests in flight given the
    // grace period to finish; returns.
    void run();
    // Begins the drain; thread-safe.
    void stop();
    // SIGHUP and POST /admin/reload make what is served anew with `loader` (none set: they are
    // refused). Set before run().
    void set_loader(ServedLoader loader);
    // Makes what is served anew and switches to it; requests in flight finish on what they started
    // with. A bad configuration is refused: the error is returned (and logged) and nothing
    // changes. Thread-safe; reloads run one at a time. Returns the new generation (1, 2, ...).
    struct ReloadOutcome {
        bool reloaded = false;
        std::uint64_t generation = 0;  // the one now served
        std::string error;             // why not, when not reloaded
    };
    ReloadOutcome reload();

    struct Impl;

  private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace cmfpipe::serve
