#pragma once
// The official mustache spec (corpus/mustache-spec/*.json), read in place, every file.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cmfpipe/json.hpp"
#include "support/corpus.hpp"

namespace cmfpipe::testing {

struct SpecCase {
    std::string file;  // "sections.json", "~lambdas.json"
    std::string name;
    std::string template_text;
    std::string expected;
    Json data;
    Json partials = Json::object();
};

inline std::vector<std::filesystem::path> spec_files() {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(require_corpus("mustache-spec"))) {
        if (entry.path().extension() == ".json") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

inline std::vector<SpecCase> spec_cases(const std::filesystem::path& file) {
    std::ifstream in(file);
    Json doc = Json::parse(in);
    std::vector<SpecCase> cases;
    for (const Json& t : doc.at("tests")) {
        SpecCase c;
        c.file = file.filename().string();
        c.name = t.at("name").get<std::string>();
        c.template_text = t.at("template").get<std::string>();
        c.expected = t.at("expected").get<std::string>();
        c.data = t.at("data");
        if (t.contains("partials")) c.partials = t.at("partials");
        cases.push_back(std::move(c));
    }
    return cases;
}

}  // namespace cmfpipe::testing
