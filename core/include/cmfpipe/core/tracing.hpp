#pragma once
// Tracing (Prompty spec §3): spans with inputs and results, fanned out to pluggable backends.
//
// A Tracer holds named backends (add/remove/clear are thread-safe). Tracer::start opens a span in
// every backend; Span::child opens a child span in the backends of its parent. Values are
// redacted (redact()) before any backend sees them. A backend that throws is cut off from that
// span (and its children) and counted in Tracer::failures(); the other backends and the traced
// operation go on. There is no global tracer and no thread-local "current span": the caller
// passes the parent span along (TraceContext), so concurrent requests never mix their traces.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cmfpipe/json.hpp"

namespace cmfpipe::tracing {

// One backend's view of one open span.
class SpanSink {
  public:
    virtual ~SpanSink();
    virtual void emit(std::string_view key, const Json& value) = 0;
    // Called once, when the span ends.
    virtual void end() = 0;
};

class Backend {
  public:
    virtual ~Backend();
    // parent: this backend's sink of the parent span, or nullptr for a root span.
    virtual std::unique_ptr<SpanSink> start(std::string_view name, SpanSink* parent) = 0;
};

class Tracer;

// An open span: RAII, ends when destroyed (or at end()). Move-only.
class Span {
  public:
    Span() = default;
    Span(Span&&) noexcept;
    Span& operator=(Span&&) noexcept;
    ~Span();

    // Redacts `value` and hands it to every backend of this span.
    void emit(std::string_view key, const Json& value);
    // The spec's error result: {"exception": kind, "message": what}.
    void emit_error(std::string_view kind, std::string_view message);
    Span child(std::string_view name);
    void end();
    bool active() const { return !sinks_.empty(); }
    const Tracer* tracer() const { return tracer_; }

  private:
    friend class Tracer;
    struct Open {
        std::shared_ptr<Backend> backend;
        std::unique_ptr<SpanSink> sink;
    };
    Span(const Tracer* tracer, std::string name, std::vector<Open> sinks);
    void guard(Open& open, const char* what, const std::function<void()>& action);

    const Tracer* tracer_ = nullptr;
    std::string name_;
    std::vector<Open> sinks_;
};

class Tracer {
  public:
    void add(std::string name, std::shared_ptr<Backend> backend);  // replaces one of that name
    void remove(std::string_view name);
    void clear();
    std::vector<std::string> names() const;
    // A root span in every backend registered now. No backends: an inactive span (no-op).
    Span start(std::string_view name) const;
    // How many backend calls threw (and were contained).
    std::size_t failures() const { return failures_.load(); }
    // Secrets known by value, not by key (what ${env:} references read): every span of this
    // tracer redacts them wherever they appear (see redact). Const, as traced operations hold a
    // const Tracer*; thread-safe.
    void redact_values(const std::vector<std::string>& values) const;
    std::vector<std::string> redacted_values() const;

  private:
    friend class Span;
    void record_failure(std::string_view backend_call) const;

    mutable std::mutex mutex_;
    mutable std::vector<std::string> redacted_values_;
    std::vector<std::pair<std::string, std::shared_ptr<Backend>>> backends_;
    mutable std::atomic<std::size_t> failures_{0};
};

// What a traced operation receives: where its span goes. Both null: no tracing.
struct TraceContext {
    const Tracer* tracer = nullptr;
    Span* parent = nullptr;
    // A child of `parent` when there is one, else a root span of `tracer`, else an inactive span.
    Span start(std::string_view name) const;
    // Tracer::redact_values on `tracer`, or on the parent's tracer; nothing when neither is set.
    void redact_values(const std::vector<std::string>& values) const;
};

// Secret-like keys (spec §3.4) -> "[REDACTED]", recursively in objects and arrays. A key is
// secret when one of its words (split at '_', '-', '.', spaces and camelCase humps) is secret,
// password, passwd, token, auth, oauth, credential(s), cookie(s), authorization, apikey, or the
// pair "api" "key". So apiKey, api_key, x-api-key, client_secret, access_token, authToken are
// redacted; prompt_tokens, max_tokens, authors, keywords are not ("tokens" holding a number is a
// count; "tokens" holding anything else is redacted).
// `values` (secrets known by value) are redacted wherever they appear: a string equal to one
// becomes "[REDACTED]", and a value of 4 bytes or more is replaced by "[REDACTED]" inside longer
// strings too (shorter ones only as whole strings, so that "1" does not eat every digit).
bool is_secret_key(std::string_view key, const Json& value);
Json redact(const Json& value, const std::vector<std::string>& values = {});

// The spec's .tracy record as JSON lines: when a root span ends, one line
//   {"runtime":"cpp","version":V,"trace":{name,__time{start,end,duration},signature?,inputs?,
//    result?,...other keys,__frames[...],__usage{...}}}
// is appended to the file (thread-safe). Usage numbers under result.usage are summed into
// __usage and hoisted into every ancestor.
class JsonLinesBackend : public Backend {
  public:
    // Creates the file when it is missing. A directory, a missing folder or a file that cannot be
    // opened for appending: Error "FILE: cannot write the trace file: REASON".
    explicit JsonLinesBackend(std::filesystem::path file);
    std::unique_ptr<SpanSink> start(std::string_view name, SpanSink* parent) override;
    void write_line(const Json& record);

  private:
    std::filesystem::path file_;
    std::mutex mutex_;
};

// "[cmfpipe] ▶ name" when a span starts, "[cmfpipe] ◀ name (12ms)" when it ends.
class ConsoleBackend : public Backend {
  public:
    explicit ConsoleBackend(std::ostream& out);
    std::unique_ptr<SpanSink> start(std::string_view name, SpanSink* parent) override;
    void write(const std::string& line);

  private:
    std::ostream& out_;
    std::mutex mutex_;
};

// "2026-04-04T12:00:00.123Z"
std::string iso8601_utc(std::chrono::system_clock::time_point when);

}  // namespace cmfpipe::tracing
