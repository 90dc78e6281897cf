#pragma once
// What GET /metrics exposes, in Prometheus' text format (version 0.0.4): requests by route and
// status, latency histograms by route, requests in flight, pipeline decisions by processor and
// outcome, upstream latency and errors. Counters are updated from any thread.
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>

namespace cmfpipe::serve {

// A latency histogram with fixed buckets (seconds), lock-free.
class Histogram {
  public:
    static constexpr std::array<double, 15> bounds = {0.0001, 0.00025, 0.0005, 0.001, 0.0025,
                                                      0.005,  0.01,    0.025,  0.05,  0.1,
                                                      0.25,   0.5,     1,      2.5,   10};
    void observe(std::chrono::nanoseconds elapsed);
    // The _bucket, _sum and _count lines of `name` with `labels` ("route=\"/health\"").
    void write(std::string& out, std::string_view name, std::string_view labels) const;
    std::uint64_t count() const { return count_.load(std::memory_order_relaxed); }

  private:
    std::array<std::atomic<std::uint64_t>, bounds.size()> buckets_{};  // not cumulative
    std::atomic<std::uint64_t> count_{0};
    std::atomic<std::uint64_t> sum_ns_{0};
};

class Metrics {
  public:
    // The routes are few and fixed: one histogram each, no lock on the hot path.
    enum class Route {
        health,
        ready,
        admin_reload,
        metrics,
        plugins,
        prompts,
        process,
        parse_output,
        chat_completions,
        messages,
        responses,
        models,  // GET /v1/models and /v1/models/{id}
        embeddings,
        count_tokens,
        other,
        count_
    };
    static std::string_view route_label(Route route);

    void request_started() { in_flight_.fetch_add(1, std::memory_order_relaxed); }
    void request_finished(Route route, unsigned status, std::chrono::nanoseconds elapsed);
    void decision(std::string_view processor, std::string_view outcome, std::string_view effect);
    void upstream(std::string_view name, std::chrono::nanoseconds elapsed);
    void upstream_error(std::string_view name, std::string_view reason);
    void connection_opened() { connections_.fetch_add(1, std::memory_order_relaxed); }
    void connection_closed() { connections_.fetch_sub(1, std::memory_order_relaxed); }

    std::int64_t in_flight() const { return in_flight_.load(std::memory_order_relaxed); }
    std::string text() const;

  private:
    std::array<Histogram, static_cast<std::size_t>(Route::count_)> latency_;
    std::atomic<std::int64_t> in_flight_{0};
    std::atomic<std::int64_t> connections_{0};
    mutable std::mutex mutex_;  // guards the labelled counters below
    std::map<std::pair<Route, unsigned>, std::uint64_t> requests_;
    std::map<std::tuple<std::string, std::string, std::string>, std::uint64_t> decisions_;
    std::map<std::string, Histogram, std::less<>> upstream_latency_;
    std::map<std::pair<std::string, std::string>, std::uint64_t> upstream_errors_;
};

}  // namespace cmfpipe::serve
