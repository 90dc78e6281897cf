// The whole conformance run (see conformance_run.hpp).
#include "conformance_run.hpp"

#include <fstream>
#include <map>
#include <ostream>
#include <set>

#include "case_record.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/input_files.hpp"
#include "cmfpipe/json_parse.hpp"

namespace cmfpipe::output_parsing {
namespace {

// Templates by file name, each read once, from the first folder that has it.
class TemplateFinder {
  public:
    explicit TemplateFinder(const std::vector<std::filesystem::path>& folders)
        : folders_(folders) {}

    const std::optional<CaseTemplate>& find(const std::string& name) {
        auto [at, inserted] = found_.try_emplace(name);
        if (!inserted) return at->second;
        for (const auto& folder : folders_) {
            const auto path = folder / name;
            if (std::filesystem::is_regular_file(path)) {
                at->second = CaseTemplate{name, path.string(), read_text_file(path)};
                break;
            }
        }
        return at->second;
    }

  private:
    const std::vector<std::filesystem::path>& folders_;
    std::map<std::string, std::optional<CaseTemplate>> found_;
};

std::string folder_list(const std::vector<std::filesystem::path>& folders) {
    std::string out;
    for (const auto& folder : folders) out += (out.empty() ? "" : ", ") + folder.string();
    return out;
}

// "0-15, 17, 19-20".
std::string index_ranges(const std::vector<std::size_t>& indices) {
    std::string out;
    for (std::size_t i = 0; i < indices.size();) {
        std::size_t j = i;
        while (j + 1 < indices.size() && indices[j + 1] <= indices[j] + 1) ++j;
        out += (out.empty() ? "" : ", ") + std::to_string(indices[i]);
        if (indices[j] != indices[i]) out += "-" + std::to_string(indices[j]);
        i = j + 1;
    }
    return out;
}

std::string run_name(std::size_t index, const std::string& template_name) {
    return "#" + std::to_string(index) + " " + template_name;
}

}  // namespace

int run_conformance(const Adapter& adapter, const ConformanceOptions& options, std::ostream& out) {
    const CaseFile cases(parse_json(read_text_file(options.cases), options.cases.string()),
                         options.cases.string());
    out << "cases: " << options.cases.string() << " (" << cases.source() << ")\n"
        << "templates: " << folder_list(options.template_folders) << "\n";

    TemplateFinder templates(options.template_folders);
    std::vector<CaseRecord> records;
    Tally tally;
    std::size_t problems = 0, listed_failures = 0, listed_runs = 0;
    std::map<std::string, std::vector<std::size_t>> absent;   // template -> the cases it skipped
    std::set<std::pair<std::size_t, std::string>> every_run;  // of the whole file

    for (std::size_t index = 0; index < cases.size(); ++index) {
        ParserCase c;
        try {
            c = cases.read(index);
        } catch (const Error& e) {
            // A case the runner cannot read is its own defect: a failure, never a skip.
            records.push_back({index, "", Status::failed, e.what()});
            tally.add(Status::failed);
            ++problems;
            out << "FAILED   #" << index << ": the case cannot be read: " << e.what() << "\n";
            continue;
        }
        for (const std::string& name : c.templates) every_run.emplace(index, name);
        if (options.only_case && *options.only_case != index) continue;
        for (const std::string& name : c.templates) {
            if (options.only_template && *options.only_template != name) continue;
            CaseRecord record{index, name, Status::skipped, ""};
            const ExpectedFailure* listed = options.expected.find(index, name);
            const std::optional<CaseTemplate>& found = templates.find(name);
            if (!found) {
                record.reason = "the template is in none of the template folders";
                absent[name].push_back(index);
            } else {
                listed_runs += listed ? 1 : 0;
                const RunOutcome outcome = run_case(adapter, c, *found, options.settings);
                record.status = outcome.passed ? Status::passed : Status::failed;
                record.reason = outcome.reason;
                if (outcome.passed && listed) {
                    ++problems;
                    record.reason = "expected to fail but passed (listed: " + listed->reason + ")";
                    out << "XPASS    " << run_name(index, name) << ": " << record.reason << "\n";
                } else if (outcome.passed) {
                    if (options.verbose) out << "passed   " << run_name(index, name) << "\n";
                } else if (listed) {
                    ++listed_failures;
                    out << "XFAIL    " << run_name(index, name) << ": " << outcome.reason
                        << " (listed: " << listed->reason << ")\n";
                } else {
                    ++problems;
                    out << "FAILED   " << run_name(index, name) << ": " << outcome.reason << "\n";
                }
            }
            tally.add(record.status);
            records.push_back(std::move(record));
        }
    }

    for (const auto& [name, indices] : absent) {
        out << "SKIPPED  " << name << ": in none of the template folders; " << indices.size()
            << (indices.size() == 1 ? " run" : " runs") << " (cases " << index_ranges(indices)
            << ")\n";
    }
    for (const ExpectedFailure& entry : options.expected.entries()) {
        if (every_run.contains({entry.index, entry.template_name})) continue;
        ++problems;
        out << "STALE    " << run_name(entry.index, entry.template_name)
            << ": the expected-failure list names a run the case file does not have\n";
    }
    const std::size_t ran = tally.passed + tally.failed;
    const bool filtered = options.only_case || options.only_template;
    if (!options.expected.entries().empty()) {
        out << "expected failures: " << listed_failures << " of " << listed_runs
            << " listed runs failed as listed (" << options.expected_name << ")\n";
    }
    if (!filtered && listed_runs > ran * expected_failure_share) {
        ++problems;
        out << "the expected-failure list holds " << listed_runs << " of the " << ran
            << " runs, more than " << static_cast<int>(expected_failure_share * 100) << "%\n";
    }
    if (options.json_out) {
        std::ofstream file(*options.json_out, std::ios::binary);
        file << records_json(records);
        if (!file.flush()) {
            out << "cannot write " << options.json_out->string() << "\n";
            ++problems;
        }
    }
    out << summary_line(tally) << "\n";
    return problems == 0 ? 0 : 1;
}

}  // namespace cmfpipe::output_parsing
