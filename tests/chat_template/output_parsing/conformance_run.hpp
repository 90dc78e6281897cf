#pragma once
// The whole run of output_parsing_conformance: every case of the case file with each template it
// names, found in the template folders (the first that has it), or skipped, loudly, where none
// has it. Each run's outcome is weighed against the expected-failure list; what failed, was
// skipped or passed against the list is printed as it happens, and the last line is the tally.
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "case_run.hpp"
#include "cmfpipe/adapter.hpp"
#include "expected_failures.hpp"

namespace cmfpipe::output_parsing {

struct ConformanceOptions {
    std::filesystem::path cases;                          // parser-cases.json
    std::vector<std::filesystem::path> template_folders;  // searched in order
    std::optional<std::filesystem::path> json_out;        // --json FILE
    ExpectedFailures expected;                            // --expected-failures FILE
    std::string expected_name;                            // its file, for the report
    std::optional<std::size_t> only_case;                 // --case N
    std::optional<std::string> only_template;             // --template NAME
    bool verbose = false;                                 // print passed runs too
    RunSettings settings;
};

// The expected-failure list may hold at most this share of the runs that are not skipped.
inline constexpr double expected_failure_share = 0.05;

// Runs everything and prints the report to `out`; the exit status: 0 when every run that was not
// skipped passed or failed as listed, 1 otherwise (a failure not listed, a listed run that passed,
// a listed run that names no case, or a list over its share).
int run_conformance(const Adapter& adapter, const ConformanceOptions& options, std::ostream& out);

}  // namespace cmfpipe::output_parsing
