#pragma once
// A serve process's drain as every I/O loop must show it: `count` idle kept-alive clients (each
// answered once) are closed by the server when the listener closes after SIGTERM (at the end of
// --drain-delay, 5 s by default: each client waits up to 10 s), and the process exits 0 at once.
#include <signal.h>

#include <catch2/catch.hpp>
#include <vector>

#include "support/http_client.hpp"
#include "support/serve_process.hpp"

namespace cmfpipe::testing {

inline void check_idle_clients_closed_on_sigterm(ServeProcess& server, int count) {
    std::vector<HttpConnection> idle;
    for (int c = 0; c < count; ++c) {
        idle.emplace_back(server.port());
        REQUIRE(idle.back().request("GET", "/health").status == 200);
    }
    server.signal(SIGTERM);
    for (auto& client : idle) CHECK(client.closed_by_server(10));
    REQUIRE(server.wait_exit(5));
    CHECK(server.exit_code() == 0);
}

}  // namespace cmfpipe::testing
