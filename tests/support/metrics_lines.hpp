#pragma once
// What a running `cmfpipe serve` says at GET /metrics, one series at a time, for tests that
// assert exact counts before and after a request.
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>

#include "support/http_client.hpp"

namespace cmfpipe::testing {

// The line "SERIES VALUE" of GET /metrics for `series` ("name{labels}"), "" when there is none.
// Polled until it reads `expected`, for up to 3 s: a request is counted once its answer is
// written, a moment after its client has read it. The caller compares it with `expected`.
inline std::string metrics_line(unsigned short port, const std::string& series,
                                const std::string& expected) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    std::string found;
    do {
        HttpConnection client(port);
        const HttpAnswer metrics = client.request("GET", "/metrics");
        REQUIRE(metrics.status == 200);
        found.clear();
        std::size_t start = 0;
        for (std::size_t end; (end = metrics.body.find('\n', start)) != std::string::npos;
             start = end + 1) {
            const std::string_view line(metrics.body.data() + start, end - start);
            if (line.starts_with(series + " ")) found = std::string(line);
        }
        if (found == expected) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    } while (std::chrono::steady_clock::now() < deadline);
    return found;
}

// The line metrics_line() reads for `series` counted `count` times ("" for 0: no line yet).
inline std::string counted(const std::string& series, int count) {
    return count == 0 ? std::string() : series + " " + std::to_string(count);
}

}  // namespace cmfpipe::testing
