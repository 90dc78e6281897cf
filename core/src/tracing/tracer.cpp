// The backend registry and the fan-out span (spec §3.1, §3.2). Every backend call is guarded:
// a backend that throws loses that span (and, having no sink, its children) and nothing else.
#include <algorithm>

#include "cmfpipe/core/tracing.hpp"

namespace cmfpipe::tracing {

SpanSink::~SpanSink() = default;
Backend::~Backend() = default;

Span::Span(const Tracer* tracer, std::string name, std::vector<Open> sinks)
    : tracer_(tracer), name_(std::move(name)), sinks_(std::move(sinks)) {}

Span::Span(Span&& other) noexcept
    : tracer_(other.tracer_), name_(std::move(other.name_)), sinks_(std::move(other.sinks_)) {
    other.sinks_.clear();
}

Span& Span::operator=(Span&& other) noexcept {
    if (this != &other) {
        end();
        tracer_ = other.tracer_;
        name_ = std::move(other.name_);
        sinks_ = std::move(other.sinks_);
        other.sinks_.clear();
    }
    return *this;
}

Span::~Span() {
    end();
}

void Span::guard(Open& open, const char* what, const std::function<void()>& action) {
    try {
        action();
    } catch (...) {
        open.sink.reset();  // this backend is done with this span
        if (tracer_) tracer_->record_failure(what);
    }
}

void Span::emit(std::string_view key, const Json& value) {
    if (sinks_.empty()) return;
    const Json clean =
        redact(value, tracer_ ? tracer_->redacted_values() : std::vector<std::string>{});
    for (auto& open : sinks_) {
        if (open.sink) guard(open, "emit", [&] { open.sink->emit(key, clean); });
    }
}

void Span::emit_error(std::string_view kind, std::string_view message) {
    if (sinks_.empty()) return;
    emit("result", {{"exception", kind}, {"message", message}});
}

Span Span::child(std::string_view name) {
    std::vector<Open> children;
    for (auto& open : sinks_) {
        if (!open.sink) continue;
        Open child{open.backend, nullptr};
        guard(open, "start", [&] { child.sink = open.backend->start(name, open.sink.get()); });
        if (child.sink) children.push_back(std::move(child));
    }
    return Span(tracer_, std::string(name), std::move(children));
}

void Span::end() {
    for (auto& open : sinks_) {
        if (open.sink) guard(open, "end", [&] { open.sink->end(); });
    }
    sinks_.clear();
}

void Tracer::add(std::string name, std::shared_ptr<Backend> backend) {
    std::lock_guard lock(mutex_);
    for (auto& entry : backends_) {
        if (entry.first == name) {
            entry.second = std::move(backend);
            return;
        }
    }
    backends_.emplace_back(std::move(name), std::move(backend));
}

void Tracer::remove(std::string_view name) {
    std::lock_guard lock(mutex_);
    backends_.erase(std::remove_if(backends_.begin(), backends_.end(),
                                   [&](const auto& e) { return e.first == name; }),
                    backends_.end());
}

void Tracer::clear() {
    std::lock_guard lock(mutex_);
    backends_.clear();
}

std::vector<std::string> Tracer::names() const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    for (const auto& entry : backends_) out.push_back(entry.first);
    return out;
}

Span Tracer::start(std::string_view name) const {
    std::vector<std::shared_ptr<Backend>> backends;
    {
        std::lock_guard lock(mutex_);
        for (const auto& entry : backends_) backends.push_back(entry.second);
    }
    std::vector<Span::Open> sinks;
    for (auto& backend : backends) {
        try {
            auto sink = backend->start(name, nullptr);
            if (sink) sinks.push_back({backend, std::move(sink)});
        } catch (...) {
            record_failure("start");
        }
    }
    return Span(this, std::string(name), std::move(sinks));
}

void Tracer::redact_values(const std::vector<std::string>& values) const {
    std::lock_guard lock(mutex_);
    for (const auto& value : values) {
        if (std::find(redacted_values_.begin(), redacted_values_.end(), value) ==
            redacted_values_.end())
            redacted_values_.push_back(value);
    }
}

std::vector<std::string> Tracer::redacted_values() const {
    std::lock_guard lock(mutex_);
    return redacted_values_;
}

void Tracer::record_failure(std::string_view) const {
    ++failures_;
}

Span TraceContext::start(std::string_view name) const {
    if (parent && parent->active()) return parent->child(name);
    if (tracer) return tracer->start(name);
    return Span();
}

void TraceContext::redact_values(const std::vector<std::string>& values) const {
    if (values.empty()) return;
    if (tracer) tracer->redact_values(values);
    if (parent && parent->tracer() && parent->tracer() != tracer)
        parent->tracer()->redact_values(values);
}

}  // namespace cmfpipe::tracing
