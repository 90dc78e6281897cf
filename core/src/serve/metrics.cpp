// GET /metrics: serve/metrics.hpp.
#include "metrics.hpp"

#include <cstdio>

namespace cmfpipe::serve {
namespace {

std::string number(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.9g", value);
    return text;
}

// A label value with \, " and newlines escaped, as the text format wants.
std::string label(std::string_view value) {
    std::string out;
    for (char c : value) {
        if (c == '\\' || c == '"') out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out;
}

void header(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
    out.append("# HELP ").append(name).append(" ").append(help).append("\n");
    out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

}  // namespace

void Histogram::observe(std::chrono::nanoseconds elapsed) {
    const double seconds = std::chrono::duration<double>(elapsed).count();
    for (std::size_t i = 0; i < bounds.size(); ++i) {
        if (seconds <= bounds[i]) {
            buckets_[i].fetch_add(1, std::memory_order_relaxed);
            break;
        }
    }
    count_.fetch_add(1, std::memory_order_relaxed);
    sum_ns_.fetch_add(static_cast<std::uint64_t>(elapsed.count()), std::memory_order_relaxed);
}

void Histogram::write(std::string& out, std::string_view name, std::string_view labels) const {
    std::uint64_t cumulative = 0;
    const std::string prefix = std::string(labels) + (labels.empty() ? "" : ",");
    for (std::size_t i = 0; i < bounds.size(); ++i) {
        cumulative += buckets_[i].load(std::memory_order_relaxed);
        out.append(name).append("_bucket{").append(prefix).append("le=\"");
        out.append(number(bounds[i])).append("\"} ").append(std::to_string(cumulative));
        out += '\n';
    }
    const std::uint64_t count = count_.load(std::memory_order_relaxed);
    out.append(name).append("_bucket{").append(prefix).append("le=\"+Inf\"} ");
    out.append(std::to_string(count)).append("\n");
    const double sum = static_cast<double>(sum_ns_.load(std::memory_order_relaxed)) / 1e9;
    out.append(name).append("_sum{").append(labels).append("} ").append(number(sum)).append("\n");
    out.append(name).append("_count{").append(labels).append("} ");
    out.append(std::to_string(count)).append("\n");
}

std::string_view Metrics::route_label(Route route) {
    switch (route) {
        case Route::health:
            return "/health";
        case Route::ready:
            return "/ready";
        case Route::admin_reload:
            return "/admin/reload";
        case Route::metrics:
            return "/metrics";
        case Route::plugins:
            return "/v1/plugins";
        case Route::prompts:
            return "/v1/prompts/{name}";
        case Route::process:
            return "/v1/process";
        case Route::parse_output:
            return "/v1/parse-output";
        case Route::chat_completions:
            return "/v1/chat/completions";
        case Route::messages:
            return "/v1/messages";
        case Route::responses:
            return "/v1/responses";
        case Route::models:
            return "/v1/models";
        case Route::embeddings:
            return "/v1/embeddings";
        case Route::count_tokens:
            return "/v1/messages/count_tokens";
        default:
            return "other";
    }
}

void Metrics::request_finished(Route route, unsigned status, std::chrono::nanoseconds elapsed) {
    in_flight_.fetch_sub(1, std::memory_order_relaxed);
    latency_[static_cast<std::size_t>(route)].observe(elapsed);
    std::lock_guard lock(mutex_);
    ++requests_[{route, status}];
}

void Metrics::decision(std::string_view processor, std::string_view outcome,
                       std::string_view effect) {
    std::lock_guard lock(mutex_);
    ++decisions_[{std::string(processor), std::string(outcome), std::string(effect)}];
}

void Metrics::upstream(std::string_view name, std::chrono::nanoseconds elapsed) {
    std::lock_guard lock(mutex_);
    auto found = upstream_latency_.find(name);
    if (found == upstream_latency_.end())
        found = upstream_latency_.try_emplace(std::string(name)).first;
    found->second.observe(elapsed);
}

void Metrics::upstream_error(std::string_view name, std::string_view reason) {
    std::lock_guard lock(mutex_);
    ++upstream_errors_[{std::string(name), std::string(reason)}];
}

std::string Metrics::text() const {
    std::string out;
    out.reserve(8192);
    header(out, "cmfpipe_http_requests_total", "counter", "HTTP requests answered.");
    {
        std::lock_guard lock(mutex_);
        for (const auto& [key, count] : requests_) {
            out.append("cmfpipe_http_requests_total{route=\"").append(route_label(key.first));
            out.append("\",status=\"").append(std::to_string(key.second)).append("\"} ");
            out.append(std::to_string(count)).append("\n");
        }
    }
    header(out, "cmfpipe_http_request_duration_seconds", "histogram",
           "Time from a request's last byte read to its answer's last byte written.");
    for (std::size_t i = 0; i < latency_.size(); ++i) {
        if (latency_[i].count() == 0) continue;
        const std::string labels =
            "route=\"" + std::string(route_label(static_cast<Route>(i))) + "\"";
        latency_[i].write(out, "cmfpipe_http_request_duration_seconds", labels);
    }
    header(out, "cmfpipe_http_requests_in_flight", "gauge", "Requests being served.");
    out.append("cmfpipe_http_requests_in_flight ").append(std::to_string(in_flight())).append("\n");
    header(out, "cmfpipe_http_connections_open", "gauge", "Client connections open.");
    out.append("cmfpipe_http_connections_open ");
    out.append(std::to_string(connections_.load(std::memory_order_relaxed))).append("\n");

    std::lock_guard lock(mutex_);
    header(out, "cmfpipe_pipeline_decisions_total", "counter",
           "Processor decisions, by processor, outcome and effect.");
    for (const auto& [key, count] : decisions_) {
        const auto& [processor, outcome, effect] = key;
        out.append("cmfpipe_pipeline_decisions_total{processor=\"").append(label(processor));
        out.append("\",outcome=\"").append(outcome).append("\",effect=\"").append(effect);
        out.append("\"} ").append(std::to_string(count)).append("\n");
    }
    header(out, "cmfpipe_upstream_request_duration_seconds", "histogram",
           "Time from a proxied request's start to the upstream's last byte.");
    for (const auto& [name, histogram] : upstream_latency_)
        histogram.write(out, "cmfpipe_upstream_request_duration_seconds",
                        "upstream=\"" + label(name) + "\"");
    header(out, "cmfpipe_upstream_errors_total", "counter",
           "Upstream calls that failed, by upstream and reason.");
    for (const auto& [key, count] : upstream_errors_) {
        out.append("cmfpipe_upstream_errors_total{upstream=\"").append(label(key.first));
        out.append("\",reason=\"").append(label(key.second)).append("\"} ");
        out.append(std::to_string(count)).append("\n");
    }
    return out;
}

}  // namespace cmfpipe::serve
