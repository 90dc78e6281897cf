// The spec's .tracy record (§3.6.1), one root span per line of a JSON-lines file. Child spans
// accumulate in memory under their root; the line is written when the root ends.
#include <ctime>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "cmfpipe/core/tracing.hpp"
#include "cmfpipe/errors.hpp"

namespace cmfpipe::tracing {

std::string iso8601_utc(std::chrono::system_clock::time_point when) {
    using namespace std::chrono;
    auto ms = duration_cast<milliseconds>(when.time_since_epoch()).count();
    std::time_t seconds = static_cast<std::time_t>(ms / 1000);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    std::ostringstream out;
    out << std::put_time(&utc, "%Y-%m-%dT%H:%M:%S") << '.' << std::setw(3) << std::setfill('0')
        << (ms % 1000) << 'Z';
    return out.str();
}

namespace {

class FrameSink : public SpanSink {
  public:
    FrameSink(JsonLinesBackend& backend, std::string_view name, FrameSink* parent)
        : backend_(backend), parent_(parent), started_(std::chrono::system_clock::now()) {
        frame_["name"] = name;
        frame_["__time"] = Json::object();
    }

    void emit(std::string_view key, const Json& value) override {
        frame_[std::string(key)] = value;
        if (key == "result" && value.is_object()) {
            auto usage = value.find("usage");
            if (usage != value.end() && usage->is_object()) {
                for (const auto& [k, v] : usage->items()) {
                    if (v.is_number()) add_usage(k, v);
                }
            }
        }
    }

    void end() override {
        auto finished = std::chrono::system_clock::now();
        frame_["__time"] = {
            {"start", iso8601_utc(started_)},
            {"end", iso8601_utc(finished)},
            {"duration", std::chrono::duration<double, std::milli>(finished - started_).count()}};
        frame_["__frames"] = std::move(frames_);
        frame_["__usage"] = usage_;
        if (parent_) {
            parent_->frames_.push_back(std::move(frame_));
            for (const auto& [k, v] : usage_.items()) parent_->add_usage(k, v);  // hoisting (§3.5)
        } else {
            backend_.write_line(
                {{"runtime", "cpp"}, {"version", CMFPIPE_VERSION}, {"trace", std::move(frame_)}});
        }
    }

  private:
    void add_usage(const std::string& key, const Json& amount) {
        Json& slot = usage_[key];
        if (slot.is_null()) {
            slot = amount;
        } else if (slot.is_number_integer() && amount.is_number_integer()) {
            slot = slot.get<std::int64_t>() + amount.get<std::int64_t>();
        } else {
            slot = slot.get<double>() + amount.get<double>();
        }
    }

    JsonLinesBackend& backend_;
    FrameSink* parent_;
    std::chrono::system_clock::time_point started_;
    Json frame_ = Json::object();
    Json frames_ = Json::array();
    Json usage_ = Json::object();
};

}  // namespace

JsonLinesBackend::JsonLinesBackend(std::filesystem::path file) : file_(std::move(file)) {
    // Said now, before the traced work runs: a trace that cannot be written would otherwise be
    // lost in silence (a backend's failures are contained, by design).
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path folder = file_.has_parent_path() ? file_.parent_path() : fs::path(".");
    std::string reason;
    if (fs::is_directory(file_, ec)) {
        reason = "it is a directory";
    } else if (!fs::is_directory(folder, ec)) {
        reason = "the folder " + folder.string() + " does not exist";
    } else if (!std::ofstream(file_, std::ios::app | std::ios::binary)) {
        reason = "it cannot be opened for appending";
    }
    if (!reason.empty()) throw Error("cannot write the trace file: " + reason, {file_.string()});
}

std::unique_ptr<SpanSink> JsonLinesBackend::start(std::string_view name, SpanSink* parent) {
    return std::make_unique<FrameSink>(*this, name, static_cast<FrameSink*>(parent));
}

void JsonLinesBackend::write_line(const Json& record) {
    std::string line = record.dump(-1, ' ', false, Json::error_handler_t::replace);
    line += '\n';
    std::lock_guard lock(mutex_);
    std::ofstream out(file_, std::ios::app | std::ios::binary);
    out << line;
    out.flush();
    if (!out) throw Error("cannot write trace file", {file_.string()});
}

}  // namespace cmfpipe::tracing
