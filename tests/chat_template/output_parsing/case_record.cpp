// The runner's records (see case_record.hpp).
#include "case_record.hpp"

namespace cmfpipe::output_parsing {

Json to_json(const CaseRecord& record) {
    static const char* const names[] = {"passed", "failed", "skipped"};
    return {{"index", record.index},
            {"template", record.template_name},
            {"status", names[static_cast<int>(record.status)]},
            {"reason", record.reason}};
}

std::string records_json(const std::vector<CaseRecord>& records) {
    std::string out = "[";
    for (std::size_t i = 0; i < records.size(); ++i) {
        out += i == 0 ? "\n" : ",\n";
        out += to_json(records[i]).dump(-1, ' ', false, Json::error_handler_t::replace);
    }
    return out + "\n]\n";
}

void Tally::add(Status status) {
    (status == Status::passed ? passed : status == Status::failed ? failed : skipped) += 1;
}

std::string summary_line(const Tally& tally) {
    return std::to_string(tally.passed) + " passed, " + std::to_string(tally.failed) + " failed, " +
           std::to_string(tally.skipped) + " skipped";
}

}  // namespace cmfpipe::output_parsing
