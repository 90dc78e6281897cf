#pragma once
// What the runner reports of each run (a case with one template): the --json record and the
// summary line that ends standard output.
#include <string>
#include <vector>

#include "cmfpipe/json.hpp"

namespace cmfpipe::output_parsing {

enum class Status { passed, failed, skipped };

struct CaseRecord {
    std::size_t index = 0;      // the case's place in parser-cases.json's "cases"
    std::string template_name;  // the template's file name
    Status status = Status::skipped;
    std::string reason;  // why it failed or was skipped ("" when it passed)
};

// {"index": 17, "template": "Qwen3.5-4B.jinja", "status": "failed", "reason": "..."}.
Json to_json(const CaseRecord& record);

// The --json file: an array, one record a line.
std::string records_json(const std::vector<CaseRecord>& records);

struct Tally {
    std::size_t passed = 0, failed = 0, skipped = 0;
    void add(Status status);
};

// "N passed, N failed, N skipped".
std::string summary_line(const Tally& tally);

}  // namespace cmfpipe::output_parsing
