#pragma once
// The runs that cannot pass, each with its reason: a JSON file, [{"index", "template",
// "reason"}], read with --expected-failures. A listed run that fails counts as expected; one that
// passes is reported and fails the runner, so the list only ever shrinks honestly.
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/json.hpp"

namespace cmfpipe::output_parsing {

struct ExpectedFailure {
    std::size_t index = 0;
    std::string template_name;
    std::string reason;
};

class ExpectedFailures {
  public:
    ExpectedFailures() = default;
    // The list as parsed; `name` is what errors call it. Every field is required, the reason
    // not empty, and a run is listed once (ValueError otherwise).
    ExpectedFailures(const Json& list, const std::string& name);

    // The entry of a run, or null.
    const ExpectedFailure* find(std::size_t index, std::string_view template_name) const;
    const std::vector<ExpectedFailure>& entries() const { return entries_; }

  private:
    std::vector<ExpectedFailure> entries_;
};

}  // namespace cmfpipe::output_parsing
