// `cmfpipe serve`'s listener, signals and drain: serve/server.hpp.
#include "cmfpipe/core/serve/server.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <csignal>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "../host/machine_share.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/request.hpp"
#include "poll_window.hpp"
#include "server_state.hpp"
#include "session.hpp"
#include "spare_cpu.hpp"
#include "upstream.hpp"

namespace cmfpipe::serve {
namespace {

namespace net = boost::asio;
using tcp = net::ip::tcp;

bool usable_request_id(std::string_view id) {
    if (id.empty() || id.size() > 128) return false;
    for (char c : id)
        if (c < 0x21 || c > 0x7e) return false;
    return true;
}

}  // namespace

ServerState::ServerState(ServerOptions options_in, std::ostream& log_stream)
    : options(std::move(options_in)), log(log_stream), id_prefix_(random_hex(8) + "-") {}

std::string ServerState::request_id(std::string_view given) {
    std::string id;
    request_id_into(id, given);
    return id;
}

void ServerState::request_id_into(std::string& id, std::string_view given) {
    if (usable_request_id(given)) {
        id.assign(given);
        return;
    }
    std::uint64_t n = next_id_.fetch_add(1, std::memory_order_relaxed);
    // 16 hex digits, written by hand: snprintf's format parsing cost ~1k instructions a request.
    id.reserve(id_prefix_.size() + 16);
    id = id_prefix_;
    char digits[16];
    for (int i = 15; i >= 0; --i, n >>= 4) digits[i] = "0123456789abcdef"[n & 15];
    id.append(digits, sizeof digits);
}

struct Server::Impl {
    Impl(std::shared_ptr<host::Host> host_in, ServerOptions options, std::ostream& log)
        : host(std::move(host_in)),
          state(std::move(options), log),
          strand(net::make_strand(io)),
          acceptor(strand),
          signals(strand),
          reload_signals(strand),
          delay_timer(strand),
          drain_timer(strand) {
        state.deadlines.start(io.get_executor());
        for (std::size_t i = 1; i < state.options.io_threads; ++i) {
            more_loops.push_back(std::make_unique<net::io_context>(1));
            keep_running.push_back(net::make_work_guard(*more_loops.back()));
        }
    }

    ~Impl() {
        // Work of a request still on the pool refers to the router, and posts its answer to a
        // session's I/O loop: both must outlive it. (~Server does not destroy an Impl
        // whose work could not finish.)
        if (state.router) state.router->wait_idle();
        // The router's upstream connections are sockets of `io`: they go before it does, and so
        // does the deadlines' timer.
        state.router.reset();
        state.deadlines.stop();
    }

    void accept() {
        acceptor.async_accept(
            session_executor(), [this](boost::system::error_code error, tcp::socket socket) {
                if (error == net::error::operation_aborted || !acceptor.is_open()) return;
                if (error) {
                    // Out of file descriptors and the like: say so and try again shortly, rather
                    // than spin or stop serving.
                    state.log.line("cmfpipe serve: accept failed: " + error.message());
                    retry_timer = std::make_unique<net::steady_timer>(strand);
                    retry_timer->expires_after(std::chrono::milliseconds(100));
                    retry_timer->async_wait([this](boost::system::error_code) { accept(); });
                    return;
                }
                boost::system::error_code ignored;
                socket.set_option(tcp::no_delay(true), ignored);
                std::make_shared<Session>(std::move(socket), state)->start();
                accept();
            });
    }

    // On the strand: a stop was asked for. /health answers 503 from now on, requests are still
    // served for the drain delay, then the listener closes. A second signal ends the process at
    // once.
    void begin_stop() {
        if (state.unready.exchange(true)) return;
        boost::system::error_code ignored;
        signals.cancel(ignored);  // a wait run() left (stop() began the drain)
        if (state.options.handle_signals) {
            signals.async_wait([this](boost::system::error_code error, int) {
                if (error) return;
                state.log.line("cmfpipe serve: a second signal, exiting now");
                std::_Exit(1);
            });
        }
        const auto delay = state.options.drain_delay;
        if (delay.count() <= 0) return close_listener();
        state.log.line("cmfpipe serve: draining, /health answers 503; the listener closes in " +
                       std::to_string(delay.count()) + " ms");
        delay_timer.expires_after(delay);
        delay_timer.async_wait([this](boost::system::error_code) { close_listener(); });
    }

    // On the strand: no more connections; idle ones are closed now, busy ones after their answer.
    void close_listener() {
        if (state.draining.exchange(true)) return;
        boost::system::error_code ignored;
        acceptor.close(ignored);
        reload_signals.cancel(ignored);  // nothing left to wait for: io may run out of work
        drain_deadline = std::chrono::steady_clock::now() + state.options.grace;
        for_each_session([](Session& session) { session.close_if_idle(); });
        watch_drain();
    }

    // Every 20 ms: done when the last connection has closed and no request's work is left. At
    // the grace period's end every request left is cancelled (client and upstream connections
    // closed); what still runs after one more second of that is stopped with the I/O loop.
    void watch_drain() {
        bool open;
        {
            std::lock_guard lock(state.sessions_mutex);
            open = !state.sessions.empty();
        }
        if (!open && state.router->idle()) {
            boost::system::error_code ignored;
            signals.cancel(ignored);  // nothing left: io runs out of work and run() returns
            keep_running.clear();     // and so do the other I/O loops
            return;
        }
        const auto now = std::chrono::steady_clock::now();
        if (!aborted && now >= drain_deadline) {
            aborted = true;
            state.log.line("cmfpipe serve: grace period over, cancelling the requests left");
            for_each_session([](Session& session) { session.abort(); });
        }
        if (aborted && now >= drain_deadline + abort_time) {
            state.log.line(
                "cmfpipe serve: requests still running after the grace period, stopping");
            io.stop();
            for (auto& loop : more_loops) loop->stop();
            return;
        }
        drain_timer.expires_after(std::chrono::milliseconds(20));
        drain_timer.async_wait([this](boost::system::error_code) { watch_drain(); });
    }

    // SIGHUP: a reload on the pool (loading files and plugins is slow work), then the next wait.
    void wait_reload_signal() {
        reload_signals.async_wait([this](boost::system::error_code error, int) {
            if (error || state.unready) return;
            host->async_call([this] { return reload(); },
                             [](std::exception_ptr, Server::ReloadOutcome) {});
            wait_reload_signal();
        });
    }

    Server::ReloadOutcome reload() {
        std::lock_guard lock(reload_mutex);
        Server::ReloadOutcome outcome;
        if (!loader) {
            outcome.error = "this server was started without a configuration to reload";
        } else {
            try {
                outcome.generation = state.router->replace(loader());
                outcome.reloaded = true;
            } catch (const Error& e) {
                outcome.error = std::string(e.kind()) + ": " + e.what();
            } catch (const std::exception& e) {
                outcome.error = std::string("InternalError: ") + e.what();
            }
        }
        if (outcome.reloaded) {
            state.log.line("cmfpipe serve: reloaded, serving generation " +
                           std::to_string(outcome.generation));
        } else {
            outcome.generation = state.router->generation();
            state.log.line("cmfpipe serve: reload refused, still serving generation " +
                           std::to_string(outcome.generation) + ": " + outcome.error);
        }
        return outcome;
    }

    // `act` on each open session, on its own strand.
    template <class Act>
    void for_each_session(Act act) {
        std::vector<std::shared_ptr<Session>> sessions;
        {
            std::lock_guard lock(state.sessions_mutex);
            for (auto& [key, weak] : state.sessions)
                if (auto session = weak.lock()) sessions.push_back(std::move(session));
        }
        for (auto& session : sessions) {
            net::post(session_executor(*session), [session, act] { act(*session); });
        }
    }

    static net::any_io_executor session_executor(Session& session) { return session.executor(); }
    // A new connection's: the I/O loops in turn. Each loop is one thread's io_context, so a
    // session's handlers never run at once without a strand, and its upstream calls use that
    // loop's pool of idle connections without a lock.
    net::any_io_executor session_executor() {
        const std::size_t loop = next_loop++ % (1 + more_loops.size());
        if (loop == 0) return io.get_executor();
        return more_loops[loop - 1]->get_executor();
    }

    std::shared_ptr<host::Host> host;
    ServerState state;  // before io: handlers queued on io refer to it when io destroys them
    // I/O loop 0: the listener's, and the first of the sessions'.
    net::io_context io{1};
    // Loops 1 to --io-threads - 1, each run by a thread of its own, kept running until the drain
    // is over.
    std::vector<std::unique_ptr<net::io_context>> more_loops;
    std::vector<net::executor_work_guard<net::io_context::executor_type>> keep_running;
    std::size_t next_loop = 0;
    // The listener's own objects (acceptor, signals, timers) are used on this strand only.
    net::strand<net::io_context::executor_type> strand;
    tcp::acceptor acceptor;
    net::signal_set signals;
    net::signal_set reload_signals;  // SIGHUP
    net::steady_timer delay_timer;
    net::steady_timer drain_timer;
    std::unique_ptr<net::steady_timer> retry_timer;
    std::chrono::steady_clock::time_point drain_deadline{};
    ServedLoader loader;
    std::mutex reload_mutex;  // one reload at a time
    bool aborted = false;     // the grace period is over and the requests left were cancelled
    // How long cancelled requests get to wind down before the I/O loop stops: the process exits
    // within the grace period and a second.
    static constexpr std::chrono::milliseconds abort_time{700};
};

Server::Server(std::shared_ptr<host::Host> host, std::shared_ptr<const host::PromptCatalog> prompts,
               ServerOptions options, std::ostream& log,
               std::shared_ptr<const tracing::Tracer> tracer)
    : impl_(std::make_unique<Impl>(host, std::move(options), log)) {
    std::map<std::string, std::unique_ptr<Upstream>> upstreams;
    const ServerOptions& given = impl_->state.options;
    for (const auto& [name, url] : given.upstreams) {
        UpstreamOptions upstream_options;
        upstream_options.timeout = given.upstream_timeout;
        upstream_options.total_timeout = given.upstream_total_timeout;
        upstream_options.ca_file = given.upstream_ca;
        upstreams.emplace(
            name, std::make_unique<Upstream>(name, parse_upstream_url(url), upstream_options,
                                             given.io_threads, impl_->state.deadlines));
    }
    StreamGuardOptions stream_options{given.stream_holdback};
    stream_options.stop = given.stream_stop;
    Served served{host->shared_service(), std::move(prompts)};
    AdminRoute admin{given.admin_token, given.admin_remote,
                     [impl = impl_.get()] { return impl->reload(); }};
    impl_->state.router = std::make_unique<Router>(
        std::move(host), std::move(served), impl_->state.metrics, impl_->state.log,
        std::move(tracer), std::move(upstreams), stream_options, std::move(admin));
}

Server::~Server() {
    // Work that outlived the I/O loop (a stuck plugin on the pool) still refers to the Impl:
    // leaking it beats a crash, and beats a process that never exits.
    if (impl_->state.router &&
        !impl_->state.router->wait_idle_for(std::chrono::milliseconds(200))) {
        impl_->state.log.line("cmfpipe serve: work still running at exit, left behind");
        (void)impl_.release();
    }
}

unsigned short Server::listen() {
    Impl& impl = *impl_;
    if (impl.acceptor.is_open()) return impl.acceptor.local_endpoint().port();
    const ServerOptions& options = impl.state.options;
    boost::system::error_code error;
    tcp::resolver resolver(impl.io);
    auto endpoints =
        resolver.resolve(options.host, std::to_string(options.port), tcp::resolver::passive, error);
    if (error || endpoints.empty()) {
        throw Error("--listen: cannot resolve '" + options.host + "': " + error.message());
    }
    const tcp::endpoint endpoint = *endpoints.begin();
    const std::string where = options.host + ":" + std::to_string(options.port);
    impl.acceptor.open(endpoint.protocol(), error);
    if (!error) impl.acceptor.set_option(net::socket_base::reuse_address(true), error);
    if (!error) impl.acceptor.bind(endpoint, error);
    if (!error) impl.acceptor.listen(net::socket_base::max_listen_connections, error);
    if (error) {
        boost::system::error_code ignored;
        impl.acceptor.close(ignored);
        throw Error("--listen " + where + ": " + error.message());
    }
    return impl.acceptor.local_endpoint().port();
}

namespace {

// An adaptive poll (the default) under a cgroup CPU quota would spend the quota the requests
// need, and get the process throttled: there it does not poll. A fixed one is the operator's.
// Also what the start-up log says of it.
std::pair<LoopPollWindows, std::string> poll_windows(const ServerOptions& options) {
    const std::string limit = std::to_string(options.busy_poll.count());
    if (options.busy_poll.count() == 0)
        return {LoopPollWindows(options.busy_poll, false), "sleep at once (--busy-poll 0)"};
    if (!options.busy_poll_adaptive)
        return {LoopPollWindows(options.busy_poll, false),
                "poll " + limit + " us before they sleep (--busy-poll " + limit + ")"};
    if (host::machine_share().cpu_quota)
        return {LoopPollWindows(PollWindow::Micros(0), false),
                "sleep at once (--busy-poll auto: a cgroup CPU quota)"};
    return {
        LoopPollWindows(options.busy_poll, true),
        "poll up to " + limit + " us while gaps are short and a CPU is spare (--busy-poll auto)"};
}

// Runs `io` until it runs out of work. While the poll window (poll_window.hpp) lasts, once no
// handler is ready the loop keeps asking the reactor without blocking (epoll_wait with no
// timeout), yielding its core to any other runnable thread between asks, and only then blocks in
// run_one(): what comes within it is taken without the kernel's wake-up of a sleeping thread. An
// adaptive window polls only while the machine has a CPU to spare (spare_cpu.hpp).
void run_loop(net::io_context& io, LoopPollWindows windows) {
    if (!windows.polls()) {
        io.run();
        return;
    }
    using Clock = std::chrono::steady_clock;
    const auto since = [](Clock::time_point start, Clock::time_point end) {
        return std::chrono::duration_cast<PollWindow::Micros>(end - start);
    };
    const SpareCpu spare_cpu;
    PollWindow* idle = nullptr;  // the window of the current idle time, if the loop is idle
    Clock::time_point idle_since{}, asked_at = Clock::now();
    while (!io.stopped()) {
        if (io.poll() > 0) {
            if (idle) idle->work_after(since(idle_since, asked_at));
            idle = nullptr;
            asked_at = Clock::now();
            continue;
        }
        if (io.stopped()) break;
        const Clock::time_point now = Clock::now();
        if (!idle) {
            idle = &windows.now();
            idle_since = now;
        }
        if (now - idle_since < idle->current() && (!idle->adaptive() || spare_cpu.now())) {
            std::this_thread::yield();
            asked_at = Clock::now();
            continue;
        }
        io.run_one();
        idle->work_after(since(idle_since, Clock::now()));
        idle = nullptr;
        asked_at = Clock::now();
    }
}

}  // namespace

void Server::run() {
    Impl& impl = *impl_;
    const unsigned short port = listen();
    if (impl.state.options.handle_signals) {
        impl.signals.add(SIGINT);
        impl.signals.add(SIGTERM);
        impl.signals.async_wait([&impl](boost::system::error_code error, int) {
            if (!error) impl.begin_stop();
        });
        impl.reload_signals.add(SIGHUP);
        net::post(impl.strand, [&impl] { impl.wait_reload_signal(); });
    }
    net::post(impl.strand, [&impl] { impl.accept(); });
    std::string host = impl.state.options.host;
    if (host.find(':') != std::string::npos) host = "[" + host + "]";  // an IPv6 address
    const auto polling = poll_windows(impl.state.options);
    const LoopPollWindows& windows = polling.first;
    impl.state.log.line("cmfpipe serve: idle I/O threads " + polling.second);
    impl.state.log.line("listening on http://" + host + ":" + std::to_string(port));

    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < impl.more_loops.size(); ++i) {
        threads.emplace_back([&impl, i, windows] {
            io_loop_index = i + 1;
            run_loop(*impl.more_loops[i], windows);
        });
    }
    io_loop_index = 0;
    run_loop(impl.io, windows);
    for (auto& thread : threads) thread.join();
}

void Server::set_loader(ServedLoader loader) {
    impl_->loader = std::move(loader);
}

Server::ReloadOutcome Server::reload() {
    return impl_->reload();
}

void Server::stop() {
    net::post(impl_->strand, [impl = impl_.get()] { impl->begin_stop(); });
}

}  // namespace cmfpipe::serve
