// The expected-failure list (see expected_failures.hpp).
#include "expected_failures.hpp"

#include "cmfpipe/json_reader.hpp"

namespace cmfpipe::output_parsing {

ExpectedFailures::ExpectedFailures(const Json& list, const std::string& name) {
    const JsonReader reader(name, list);
    for (const JsonReader& entry : reader.array().elements()) {
        entry.only_fields({"index", "template", "reason"});
        ExpectedFailure failure;
        failure.index = static_cast<std::size_t>(entry.at("index").integer_in(0, 1'000'000));
        failure.template_name = entry.at("template").string();
        failure.reason = entry.at("reason").string();
        if (failure.reason.empty()) entry.at("reason").fail("say why the run cannot pass");
        if (find(failure.index, failure.template_name)) entry.fail("the run is listed twice");
        entries_.push_back(std::move(failure));
    }
}

const ExpectedFailure* ExpectedFailures::find(std::size_t index,
                                              std::string_view template_name) const {
    for (const ExpectedFailure& entry : entries_) {
        if (entry.index == index && entry.template_name == template_name) return &entry;
    }
    return nullptr;
}

}  // namespace cmfpipe::output_parsing
