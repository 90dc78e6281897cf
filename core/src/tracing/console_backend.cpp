// Span start/end lines on a stream (spec §3.6.2), for a person watching a run.
#include <ostream>

#include "cmfpipe/core/tracing.hpp"

namespace cmfpipe::tracing {

ConsoleBackend::ConsoleBackend(std::ostream& out) : out_(out) {}

namespace {

class ConsoleSink : public SpanSink {
  public:
    ConsoleSink(ConsoleBackend& backend, std::string_view name)
        : backend_(backend), name_(name), started_(std::chrono::steady_clock::now()) {
        backend_.write("[cmfpipe] \u25b6 " + name_);
    }
    void emit(std::string_view, const Json&) override {}
    void end() override {
        auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::steady_clock::now() - started_);
        backend_.write("[cmfpipe] \u25c0 " + name_ + " (" + std::to_string(ms.count()) + "ms)");
    }

  private:
    ConsoleBackend& backend_;
    std::string name_;
    std::chrono::steady_clock::time_point started_;
};

}  // namespace

std::unique_ptr<SpanSink> ConsoleBackend::start(std::string_view name, SpanSink*) {
    return std::make_unique<ConsoleSink>(*this, name);
}

void ConsoleBackend::write(const std::string& line) {
    std::lock_guard lock(mutex_);
    out_ << line << '\n';
    out_.flush();
}

}  // namespace cmfpipe::tracing
