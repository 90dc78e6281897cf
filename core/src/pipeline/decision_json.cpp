// Decisions and results as JSON: what `cmfpipe process` prints and a server would answer.
#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/core/pipeline/pipeline.hpp"

namespace cmfpipe::pipeline {

std::string_view to_string(Outcome outcome) {
    switch (outcome) {
        case Outcome::modified:
            return "modified";
        case Outcome::violation:
            return "violation";
        case Outcome::denied:
            return "denied";
        case Outcome::error:
            return "error";
    }
    return "?";
}

std::string_view to_string(Effect effect) {
    switch (effect) {
        case Effect::applied:
            return "applied";
        case Effect::discarded:
            return "discarded";
        case Effect::rejected:
            return "rejected";
        case Effect::recorded:
            return "recorded";
        case Effect::stopped:
            return "stopped";
        case Effect::ignored:
            return "ignored";
        case Effect::disabled:
            return "disabled";
    }
    return "?";
}

Json to_json(const Decision& d) {
    Json out = {{"processor", d.processor},
                {"kind", d.kind},
                {"hook", d.hook},
                {"message", d.message},
                {"mode", to_string(d.mode)},
                {"outcome", to_string(d.outcome)},
                {"effect", to_string(d.effect)}};
    if (d.denial) {
        out["reason"] = d.denial->reason;
        out["code"] = d.denial->code;
        out["details"] = d.denial->details;
    }
    if (!d.violations.empty()) {
        Json list = Json::array();
        for (const auto& v : d.violations)
            list.push_back({{"slot", v.slot}, {"tier", v.tier}, {"detail", v.detail}});
        out["violations"] = std::move(list);
    }
    if (d.outcome == Outcome::error)
        out["error"] = {{"kind", d.error_kind}, {"message", d.error_message}};
    return out;
}

Json to_json(const PipelineResult& result) {
    Json decisions = Json::array();
    for (const auto& d : result.decisions) decisions.push_back(to_json(d));
    return {{"messages", cmf::messages_to_json(result.messages)},
            {"decisions", std::move(decisions)}};
}

std::string stop_message(const std::vector<Decision>& decisions, std::string_view what) {
    for (const Decision& d : decisions) {
        if (d.effect != Effect::stopped) continue;
        std::string message = "processor '" + d.processor + "' stopped the " + std::string(what);
        if (d.denial && !d.denial->reason.empty()) message += ": " + d.denial->reason;
        return message;
    }
    return "a processor stopped the " + std::string(what);
}

}  // namespace cmfpipe::pipeline
