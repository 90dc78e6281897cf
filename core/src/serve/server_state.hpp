#pragma once
// What the listener and every session of one server share.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "../host/machine_share.hpp"
#include "cmfpipe/core/host/answer_bound.hpp"
#include "cmfpipe/core/serve/server.hpp"
#include "coarse_deadlines.hpp"
#include "memory_budget.hpp"
#include "metrics.hpp"
#include "router.hpp"

namespace cmfpipe::serve {

class Session;

struct ServerState {
    ServerState(ServerOptions options, std::ostream& log);

    // The client's x-cmfpipe-request-id when it is usable (1 to 128 visible ASCII characters), else
    // a new one: this process's random prefix and a counter.
    std::string request_id(std::string_view given);
    // The same, written into `id` (its capacity kept: a session's id for each of its requests).
    void request_id_into(std::string& id, std::string_view given);

    const ServerOptions options;
    // Made from `options` (initialized first): the prompt routes' answers, and what the server
    // holds for its clients.
    const host::AnswerBound answer_bound{options.max_answer, "--max-answer"};
    // When sessions were last asked to shed stalled answers (steady_clock ticks).
    std::atomic<std::chrono::steady_clock::rep> last_shed{0};
    MemoryBudget buffered{options.max_buffered != 0
                              ? options.max_buffered
                              : default_max_buffered(options.max_body, options.max_answer,
                                                     host::machine_share().memory)};
    LogSink log;
    Metrics metrics;
    // Every connection's deadline (sessions' and upstream connections'), one timer.
    CoarseDeadlines deadlines;
    std::unique_ptr<Router> router;
    // A stop was asked for: /health and /ready answer 503, answers close their connections, and
    // the listener still accepts (the drain delay).
    std::atomic<bool> unready{false};
    // The drain delay is over: the listener is closed, connections close once idle.
    std::atomic<bool> draining{false};

    std::mutex sessions_mutex;
    std::unordered_map<const Session*, std::weak_ptr<Session>> sessions;

  private:
    std::string id_prefix_;
    std::atomic<std::uint64_t> next_id_{0};
};

}  // namespace cmfpipe::serve
