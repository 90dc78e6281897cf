// The Prompty conformance vectors (corpus/prompty/vectors.json) for what core covers: load
// (with validation), render, renderSegments and parse, through the real plugins of this build.
// Every vector passes or is listed in skip-list.json with its reason. Prints the counts.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>

#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/core/files.hpp"
#include "cmfpipe/core/prompty/loader.hpp"
#include "cmfpipe/core/prompty/prepare.hpp"
#include "cmfpipe/core/prompty/segments.hpp"
#include "cmfpipe/core/prompty/validation.hpp"
#include "cmfpipe/errors.hpp"
#include "support/corpus.hpp"
#include "support/registry.hpp"
#include "support/scratch.hpp"

using namespace cmfpipe;
using namespace cmfpipe::prompty;
namespace fs = std::filesystem;

namespace {

// "" when `actual` has everything `expected` has: objects by key (an expected null means absent
// or null), lists element by element with equal length, scalars equal. Else where it differs.
std::string mismatch(const Json& expected, const Json& actual, const std::string& path = "$") {
    if (expected.is_null())
        return actual.is_null() ? "" : path + ": expected absent/null, got " + actual.dump();
    if (expected.is_object()) {
        if (!actual.is_object()) return path + ": expected an object, got " + actual.dump();
        for (const auto& [key, value] : expected.items()) {
            auto it = actual.find(key);
            std::string m = mismatch(value, it == actual.end() ? Json() : *it, path + "." + key);
            if (!m.empty()) return m;
        }
        return "";
    }
    if (expected.is_array()) {
        if (!actual.is_array() || actual.size() != expected.size()) {
            return path + ": expected " + expected.dump() + ", got " + actual.dump();
        }
        for (std::size_t i = 0; i < expected.size(); ++i) {
            std::string m = mismatch(expected[i], actual[i], path + "[" + std::to_string(i) + "]");
            if (!m.empty()) return m;
        }
        return "";
    }
    if (expected.is_number() && actual.is_number()) {
        return expected.get<double>() == actual.get<double>()
                   ? ""
                   : path + ": expected " + expected.dump() + ", got " + actual.dump();
    }
    return expected == actual ? ""
                              : path + ": expected " + expected.dump() + ", got " + actual.dump();
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

// The vectors name errors by the reference runtimes' exception class or message fragment. C++
// has no FileNotFoundError: a missing file is a ValueError whose message says "not found".
std::string error_mismatch(const Json& expected, const Error& e) {
    std::string want = expected.at("error").get<std::string>();
    std::string text = lower(std::string(e.kind()) + ": " + e.what());
    std::string needle = want == "FileNotFoundError" ? "not found" : lower(want);
    if (text.find(needle) == std::string::npos)
        return "error '" + std::string(e.what()) + "' does not say '" + want + "'";
    if (auto field = expected.find("error_field"); field != expected.end()) {
        if (text.find(lower(field->get<std::string>())) == std::string::npos) {
            return "error '" + std::string(e.what()) + "' does not name '" +
                   field->get<std::string>() + "'";
        }
    }
    return "";
}

// The vectors say how ${env:} resolves, not which variables a host allows: as the host, the
// harness allows every name the vector's text (or its fixture) references.
std::vector<std::string> env_names_in(const std::string& text) {
    static const std::regex reference(R"(\$\{env:([^:}]+))");
    std::vector<std::string> names;
    for (std::sregex_iterator it(text.begin(), text.end(), reference), end; it != end; ++it)
        names.push_back((*it)[1]);
    return names;
}

EnvironmentLookup env_of(const Json& vars) {
    std::map<std::string, std::string> map;
    if (vars.is_object()) {
        for (const auto& [k, v] : vars.items()) map[k] = v.get<std::string>();
    }
    return [map](std::string_view name) -> std::optional<std::string> {
        auto it = map.find(std::string(name));
        if (it == map.end()) return std::nullopt;
        return it->second;
    };
}

class Runner {
  public:
    explicit Runner(fs::path corpus)
        : corpus_(std::move(corpus)), registry_(cmfpipe::testing::bundled_plugins()) {}

    // "" = passed; otherwise what went wrong.
    std::string run(const std::string& operation, const Json& vector) {
        const Json& input = vector.at("input");
        const Json& expected = vector.at("expected");
        try {
            std::string outcome;
            if (operation == "load")
                outcome = load(input, expected);
            else if (operation == "render")
                outcome = render_vector(input, expected);
            else if (operation == "renderSegments")
                outcome = segments_vector(input, expected);
            else if (operation == "parse")
                outcome = parse_vector(input, expected);
            else
                return "no runner for operation '" + operation + "'";
            return outcome;
        } catch (const Error& e) {
            if (expected.contains("error")) return error_mismatch(expected, e);
            return std::string("unexpected ") + e.kind() + ": " + e.what();
        }
    }

  private:
    std::string expect_error(const Json& expected) {
        return expected.contains("error")
                   ? "expected error '" + expected["error"].get<std::string>() + "', got none"
                   : "";
    }

    std::string load(const Json& input, const Json& expected) {
        LoadOptions options;
        options.environment = env_of(input.value("env", Json::object()));
        options.allowed_env = env_names_in(input.dump());
        Agent agent;
        if (input.contains("fixture")) {
            const fs::path fixture = corpus_ / "fixtures" / input["fixture"].get<std::string>();
            if (fs::is_regular_file(fixture)) {  // a missing fixture is a vector of its own
                for (auto& name : env_names_in(read_text_file(fixture)))
                    options.allowed_env.push_back(std::move(name));
            }
            agent = prompty::load(fixture, options);
        } else {
            const cmfpipe::testing::Scratch scratch;
            fs::path dir = scratch.dir / input.value("agent_subdir", std::string("."));
            fs::create_directories(dir);
            const Json files = input.value("files", Json::object());
            for (const auto& [file, content] : files.items()) {
                fs::path path = dir / file;
                fs::create_directories(path.parent_path());
                std::ofstream(path)
                    << (content.is_string() ? content.get<std::string>() : content.dump(2));
            }
            std::string text =
                input.contains("frontmatter_raw")
                    ? input["frontmatter_raw"].get<std::string>()
                    : "---\n" + input.at("frontmatter").dump(2) + "\n---\nsystem:\nHello";
            fs::path prompt = dir / "prompt.prompty";
            std::ofstream(prompt) << text;
            agent = prompty::load(prompt, options);
        }
        if (input.contains("inputs")) {
            Json validated = validate_inputs(agent, input["inputs"]);
            if (auto e = expect_error(expected); !e.empty()) return e;
            return mismatch(expected.at("validated_inputs"), validated);
        }
        if (auto e = expect_error(expected); !e.empty()) return e;
        return mismatch(expected, to_json(agent));
    }

    Agent template_agent(const Json& input) {
        Agent agent;
        agent.name = "vector";
        agent.instructions = input.at("template").get<std::string>();
        agent.template_config.format_kind = input.value("engine", std::string("jinja2"));
        return agent;
    }

    std::string render_vector(const Json& input, const Json& expected) {
        Agent agent = template_agent(input);
        Invokers invokers{registry_.make_renderer(agent.template_config.format_kind), nullptr};
        RenderResult r = prompty::render(invokers, agent, input.value("inputs", Json::object()));
        if (auto e = expect_error(expected); !e.empty()) return e;
        if (expected.contains("rendered")) return mismatch(expected["rendered"], r.text);
        std::regex pattern(expected.at("nonce_pattern").get<std::string>());
        if (!std::regex_match(r.text, pattern))
            return "rendered " + Json(r.text).dump() + " does not match the nonce pattern";
        // The thread's value travels in the request under the placeholder that is in the text.
        for (const auto& [placeholder, rich] : r.request.rich_inputs) {
            if (r.text.find(placeholder) == std::string::npos)
                return "placeholder " + placeholder + " not in the text";
        }
        return r.request.rich_inputs.size() == 1 ? "" : "expected one rich input in the request";
    }

    std::string segments_vector(const Json& input, const Json& expected) {
        Agent agent = template_agent(input);
        // The parser says what a role boundary is (strict inputs); the render is as written.
        Invokers invokers{registry_.make_renderer(agent.template_config.format_kind),
                          registry_.make_parser(agent.template_config.parser_kind)};
        std::vector<std::string> strict = input.value("strict_props", std::vector<std::string>{});
        SegmentedRender r =
            render_segments(invokers, agent, input.value("inputs", Json::object()), strict);
        if (auto e = expect_error(expected); !e.empty()) return e;
        Json actual = Json::array();
        for (const auto& s : r.segments) actual.push_back(to_json(s));
        return expected.at("segments") == actual
                   ? ""
                   : "segments " + actual.dump() + " != " + expected["segments"].dump();
    }

    // CMF messages in the vectors' Prompty shape: {role, content: [{kind: "text", value}],
    // metadata?}.
    static Json prompty_shape(const std::vector<cmf::Message>& messages) {
        Json out = Json::array();
        for (const auto& m : messages) {
            Json content = Json::array();
            for (const auto& part : m.content()) {
                if (const auto* text = part->get_if<cmf::Text>()) {
                    content.push_back({{"kind", "text"}, {"value", text->text}});
                } else {
                    content.push_back(cmf::part_to_json(*part));
                }
            }
            Json message = {{"role", std::string(cmf::to_string(m.role()))}, {"content", content}};
            if (m.custom() && m.custom()->contains("metadata"))
                message["metadata"] = m.custom()->at("metadata");
            out.push_back(message);
        }
        return out;
    }

    std::string parse_vector(const Json& input, const Json& expected) {
        Agent agent;
        agent.name = "vector";
        // The vectors come from runtimes where strict parsing is opt-in and their texts carry no
        // marker nonce; cmfpipe is strict unless told otherwise, so compare like with like.
        agent.template_config.strict = false;
        Invokers invokers{nullptr, registry_.make_parser(agent.template_config.parser_kind)};
        const std::string text = input.at("rendered").get<std::string>();
        RequestContext request;
        const Json threads = input.value("thread_inputs", Json::object());
        for (const auto& [name, messages] : threads.items()) {
            // The vector's text carries a placeholder made earlier; find it and hand its thread
            // over.
            const std::string suffix = "_" + name + "__";
            std::size_t suffix_at = text.find(suffix);
            std::size_t at = suffix_at == std::string::npos
                                 ? suffix_at
                                 : text.rfind("__PROMPTY_THREAD_", suffix_at);
            if (at == std::string::npos)
                return "no placeholder for thread input '" + name + "' in the text";
            std::size_t end = suffix_at + suffix.size();
            request.rich_inputs.emplace(
                text.substr(at, end - at),
                RichInput{name, RichKind::thread, normalize_thread(messages, name)});
        }
        auto messages = prompty::parse(invokers, agent, text, request);
        if (auto e = expect_error(expected); !e.empty()) return e;
        Json actual = prompty_shape(messages);
        return expected.at("messages") == actual
                   ? ""
                   : "messages " + actual.dump() + " != " + expected["messages"].dump();
    }

    fs::path corpus_;
    const Registry& registry_;
};

}  // namespace

TEST_CASE("prompty conformance vectors: every vector passes or is skipped with a reason") {
    const fs::path corpus = testing::require_corpus("prompty");
    const Json vectors = read_json_file(corpus / "vectors.json").at("vectors");
    const Json skips =
        read_json_file(fs::path(CMFPIPE_SOURCE_DIR) / "tests/prompty/skip-list.json");
    const Json& skip_ops = skips.at("operations");
    const Json& skip_names = skips.at("vectors");

    Runner runner(corpus);
    std::map<std::string, int> passed, failed, skipped;
    std::map<std::string, std::string> skip_reasons;
    std::vector<std::string> failures;
    std::set<std::string> seen_ops, seen_names;
    for (const auto& entry : vectors) {
        const std::string op = entry.at("operation");
        const std::string name = entry.at("vector").at("name");
        seen_ops.insert(op);
        seen_names.insert(name);
        if (skip_ops.contains(op) || skip_names.contains(name)) {
            ++skipped[op];
            skip_reasons[op] = skip_names.contains(name)
                                   ? name + ": " + skip_names[name].get<std::string>()
                                   : skip_ops[op].get<std::string>();
            continue;
        }
        std::string outcome = runner.run(op, entry.at("vector"));
        if (outcome.empty()) {
            ++passed[op];
        } else {
            ++failed[op];
            failures.push_back(op + "/" + name + ": " + outcome);
        }
    }
    int total_passed = 0, total_failed = 0, total_skipped = 0;
    std::cout << "\nPrompty conformance vectors (" << vectors.size() << ")\n";
    std::set<std::string> ops;
    for (const auto& m : {passed, failed, skipped}) {
        for (const auto& [op, n] : m) ops.insert(op);
    }
    for (const auto& op : ops) {
        std::cout << "  " << op << ": passed " << passed[op] << ", failed " << failed[op]
                  << ", skipped " << skipped[op];
        if (skipped[op]) std::cout << "  (" << skip_reasons[op] << ")";
        std::cout << "\n";
        total_passed += passed[op];
        total_failed += failed[op];
        total_skipped += skipped[op];
    }
    std::cout << "  TOTAL: passed " << total_passed << ", failed " << total_failed << ", skipped "
              << total_skipped << "\n";
    for (const auto& f : failures) std::cout << "  FAILED " << f << "\n";
    std::cout.flush();

    // A stale skip-list entry (an operation or vector that no longer exists) is an error too.
    for (const auto& [op, reason] : skip_ops.items()) CHECK(seen_ops.count(op) == 1);
    for (const auto& [name, reason] : skip_names.items()) CHECK(seen_names.count(name) == 1);
    CHECK(total_passed + total_failed + total_skipped == static_cast<int>(vectors.size()));
    CHECK(total_failed == 0);
}
