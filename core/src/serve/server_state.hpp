#pragma once
// What the listener and every session of one server share.
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "cmfpipe/core/serve/server.hpp"
#include "metrics.hpp"
#include "router.hpp"

namespace cmfpipe::serve {

class Session;

struct ServerState {
    ServerState(ServerOptions options, std::ostream& log);

    // The client's x-request-id when it is usable (1 to 128 visible ASCII characters), else a new
    // one: this process's random prefix and a counter.
    std::string request_id(std::string_view given);

    const ServerOptions options;
    LogSink log;
    Metrics metrics;
    std::unique_ptr<Router> router;
    std::atomic<bool> draining{false};

    std::mutex sessions_mutex;
    std::unordered_map<const Session*, std::weak_ptr<Session>> sessions;

  private:
    std::string id_prefix_;
    std::atomic<std::uint64_t> next_id_{0};
};

}  // namespace cmfpipe::serve
