// Parsing a completion is linear on any input, not only on well-formed ones (issue 28): over
// every corpus template, completions of 1 MB made of one of the template's own openers repeated
// without its closer (the call section's, the call's, the function name's, the arguments', an
// argument's, the id's, the reasoning's and the content's start, a whole call opened up to its
// arguments, quotes) go through the adapter's from_wire, whole and with partial=true, each in
// at most 0.2 s of CPU time, with nothing thrown but a cmfpipe::Error; and the same for call
// openers nested with their closers. The strings come from each template's analysis, so a
// template added to the corpus is covered as it is. A black-box fuzz found `<tool_calls>[{`
// repeated on the Apriel templates at 25 s for 1 MB before the fix.
#include <catch2/catch.hpp>

#include <algorithm>
#include <ctime>
#include <random>
#include <set>

#include "chat_template_support.hpp"
#include "json_extent.hpp"
#include "support/hostile.hpp"
#include "template_analysis.hpp"

namespace fs = std::filesystem;
using cmfpipe::Json;
using namespace cmfpipe::chat_template;
using namespace cmfpipe::testing;

namespace {

// 1 MB; under the sanitizers (where the time is not checked, and the shadow memory makes a 1 MB
// parse take seconds) 64 KB: the shapes, whole and partial, are still all parsed.
constexpr std::size_t kShapeBytes = kSanitized ? std::size_t(1) << 16 : std::size_t(1) << 20;
constexpr double kMaxSeconds = 0.2;

const Json tools = cmfpipe::parse_json(R"([{"type": "function", "function": {
    "name": "get_weather", "description": "The weather", "parameters": {"type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}}])",
                                       "tools");

// The variables a template needs beyond transformers' (as analysis_test.cpp gives them).
Json variables_for(const std::string& name) {
    if (name == "fireworks-ai-llama-3-firefunction-v2")
        return Json{{"functions", "[]"}, {"datetime", "Jul 26 2024"}};
    return Json::object();
}

// `unit` repeated to kShapeBytes (at least once).
std::string repeated(const std::string& unit) {
    std::string out;
    out.reserve(kShapeBytes + unit.size());
    do out += unit;
    while (out.size() < kShapeBytes);
    return out;
}

// The last key of a dotted path ("function.name": "name").
std::string last_key_of(const std::string& path) {
    const std::size_t dot = path.rfind('.');
    return dot == std::string::npos ? path : path.substr(dot + 1);
}

// The units the template's analysis implies a completion may open and never close.
std::set<std::string> open_units(const TemplateAnalysis& a) {
    const ToolAnalysis& t = a.tools;
    std::set<std::string> units = {"\"", "'", "{\"", "[{", "{", "(", "\\\""};
    for (const std::string* m :
         {&t.section_start, &t.per_call_start, &t.name_prefix, &t.arguments_start,
          &t.argument_name_prefix, &t.argument_value_prefix, &t.id_prefix, &t.expression_open,
          &t.string_quote, &a.reasoning.start, &a.content.start})
        if (!m->empty()) units.insert(*m);
    // A call opened up to its arguments, then an argument opened: what a model cut off writes.
    std::string call = t.section_start + t.per_call_start;
    if (t.format == ToolFormat::json_native) {
        call += t.calls_in_array ? "[{" : "{";
        units.insert(call);
        units.insert(call + "\"" + (t.name_field.empty() ? "name" : t.name_field) + "\": \"");
        units.insert(call + "\"name\": \"get_weather\", \"arguments\": {\"city\": \"");
    } else {
        call +=
            t.name_prefix + "get_weather" + t.name_suffix + t.expression_open + t.arguments_start;
        units.insert(call);
        units.insert(call + "{\"city\": \"");
        units.insert(call + t.argument_name_prefix + "city" + t.argument_name_suffix +
                     t.argument_value_prefix);
        units.insert(t.name_prefix + "get_weather");
    }
    units.erase("");
    return units;
}

// A completion of call openers nested with their closers: `head` once, `open` repeated, `middle`,
// then `close` as often as `open` (`<tool_calls>[{` x k, `}]` x k). Every opener is a candidate
// whose value ends at its own closer, far away: each must not scan or convert it again.
struct NestedShape {
    std::string head, open, middle, close;
};

std::string nested(const NestedShape& shape) {
    const std::size_t k = std::max<std::size_t>(
        1, kShapeBytes / std::max<std::size_t>(1, shape.open.size() + shape.close.size()));
    std::string out;
    out.reserve(shape.head.size() + k * (shape.open.size() + shape.close.size()) +
                shape.middle.size());
    out += shape.head;
    for (std::size_t i = 0; i < k; ++i) out += shape.open;
    out += shape.middle;
    for (std::size_t i = 0; i < k; ++i) out += shape.close;
    return out;
}

// The nested shapes the template's analysis implies: its call opened up to the arguments (the
// markers once, or repeated with each level), with and without a name and arguments inside each
// level, each closed by what closes it.
std::vector<NestedShape> nested_shapes(const TemplateAnalysis& a) {
    const ToolAnalysis& t = a.tools;
    std::vector<NestedShape> shapes = {
        {"", "[{", "", "}]"}, {"", "{\"a\": ", "{}", "}"}, {"", "[", "", "]"}};
    const std::string markers = t.section_start + t.per_call_start;
    const std::string markers_end = t.per_call_end + t.section_end;
    if (t.format == ToolFormat::json_native) {
        const std::string open = t.calls_in_array ? "[{" : "{";
        const std::string close = t.calls_in_array ? "}]" : "}";
        const std::string name_key = t.name_field.empty() ? "name" : last_key_of(t.name_field);
        const std::string arguments_key =
            t.arguments_field.empty() ? "arguments" : last_key_of(t.arguments_field);
        const std::string fields =
            t.function_name_is_key
                ? "\"get_weather\": "
                : "\"" + name_key + "\": \"get_weather\", \"" + arguments_key + "\": ";
        const std::string literal = "\"name\": \"get_weather\", \"arguments\": ";
        for (const std::string* inside : {&fields, &literal}) {
            shapes.push_back({"", markers + open + *inside, "{}", close + markers_end});
            shapes.push_back({markers, open + *inside, "{}", close});
        }
        shapes.push_back({"", markers + open, "", close + markers_end});
        shapes.push_back({markers, open, "", close});
    } else {
        const std::string call = markers + t.name_prefix + "get_weather" + t.name_suffix +
                                 t.expression_open + t.arguments_start;
        const std::string call_end =
            t.expression_close + t.arguments_end + t.function_close + markers_end;
        shapes.push_back({"", call + "{\"city\": ", "{}", "}" + call_end});
        shapes.push_back({"", call, "", call_end});
        if (!t.argument_name_prefix.empty()) {
            shapes.push_back({"",
                              call + t.argument_name_prefix + "city" + t.argument_name_suffix +
                                  t.argument_value_prefix,
                              "x", t.argument_value_suffix + call_end});
        }
        if (t.format == ToolFormat::call_expression) {
            shapes.push_back({"", "[" + call + "city" + t.expression_assign, "1", call_end + "]"});
            shapes.push_back({"", call + "city" + t.expression_assign + "[", "1", "]" + call_end});
        }
    }
    return shapes;
}

// The CPU time this thread has used, in seconds: what a parse costs, unlike the wall clock, does
// not grow when other processes share the machine's cores (a quadratic parse still shows).
double thread_cpu_seconds() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

// CPU seconds the adapter's from_wire takes on `completion`; a failure names what was thrown
// when it is not a cmfpipe::Error.
double parse_seconds(const cmfpipe::Adapter& adapter, const std::string& completion,
                     const Json& options) {
    const double begin = thread_cpu_seconds();
    try {
        adapter.from_wire(completion, options);
    } catch (const cmfpipe::Error&) {
        // A refusal is an answer.
    } catch (const std::exception& e) {
        FAIL("not a cmfpipe::Error: " << e.what());
    }
    return thread_cpu_seconds() - begin;
}

}  // namespace

TEST_CASE("chat_template parse: openers repeated without closers parse in linear time",
          "[chat_template][linear]") {
    const auto renderer = bundled_plugins().make_renderer("jinja2");
    const auto adapter = chat_template_adapter();
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(require_corpus("chat-templates") / "templates"))
        if (entry.path().extension() == ".jinja") names.push_back(entry.path().stem().string());
    std::sort(names.begin(), names.end());
    REQUIRE(names.size() >= 42);
    // Templates whose analyses agree read a completion alike: each (analysis, unit) once, which
    // bounds the test's time (about 1,000 parses, 3 s at -O2 the day it was written).
    std::set<std::string> seen;
    std::size_t parses = 0;
    double slowest = 0;
    for (const std::string& name : names) {
        const std::string text = corpus_template(name);
        const TemplateAnalysis analysis =
            analyze_template(*renderer, AnalysisInputs{text, "", "", variables_for(name)});
        Json analysis_json = to_json(analysis);
        analysis_json.erase("notes");
        Json options = {{"template", text},
                        {"template_name", name + ".jinja"},
                        {"tools", tools},
                        {"chat_template_kwargs", variables_for(name)}};
        parse_seconds(*adapter, "warm", options);  // the analysis, into the adapter's cache
        for (const std::string& unit : open_units(analysis)) {
            if (!seen.insert(analysis_json.dump() + '\n' + unit).second) continue;
            const std::string completion = repeated(unit);
            for (const bool partial : {false, true}) {
                INFO(name << ": " << Json(unit).dump() << " x " << completion.size() / unit.size()
                          << (partial ? ", partial" : ""));
                options["partial"] = partial;
                const double seconds = parse_seconds(*adapter, completion, options);
                slowest = std::max(slowest, seconds);
                ++parses;
                if (!kSanitized) CHECK(seconds <= kMaxSeconds);
            }
        }
    }
    WARN(parses << " parses of " << kShapeBytes / 1024 << " KB, the slowest " << slowest << " s");
}

TEST_CASE("chat_template parse: call openers nested with their closers parse in linear time",
          "[chat_template][linear]") {
    // Before JsonExtents kept the closers of every scan and literal_value skipped a Python
    // rewrite that could not help, `<tool_calls>[{` x k then `}]` x k on the Apriel templates
    // took 5.6 s at 100 KB and 555 s at 1 MB (every candidate scanned and rewrote the rest).
    const auto renderer = bundled_plugins().make_renderer("jinja2");
    const auto adapter = chat_template_adapter();
    // The corpus, and the marker tests' templates (the layouts of issue 28's point 3).
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(require_corpus("chat-templates") / "templates"))
        if (entry.path().extension() == ".jinja") files.push_back(entry.path());
    REQUIRE(files.size() >= 42);
    for (const auto& entry :
         fs::directory_iterator(chat_template_test_dir / "fixtures" / "markers"))
        if (entry.path().extension() == ".jinja") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    std::set<std::string> seen;
    std::size_t parses = 0;
    double slowest = 0;
    for (const fs::path& file : files) {
        const std::string name = file.stem().string();
        const std::string text = read_bytes(file);
        const TemplateAnalysis analysis =
            analyze_template(*renderer, AnalysisInputs{text, "", "", variables_for(name)});
        Json analysis_json = to_json(analysis);
        analysis_json.erase("notes");
        Json options = {{"template", text},
                        {"template_name", name + ".jinja"},
                        {"tools", tools},
                        {"chat_template_kwargs", variables_for(name)}};
        parse_seconds(*adapter, "warm", options);
        for (const NestedShape& shape : nested_shapes(analysis)) {
            const std::string key = shape.head + '\n' + shape.open + '\n' + shape.close;
            if (!seen.insert(analysis_json.dump() + '\n' + key).second) continue;
            const std::string completion = nested(shape);
            for (const bool partial : {false, true}) {
                INFO(name << ": " << Json(shape.head).dump() << " + " << Json(shape.open).dump()
                          << " x k + " << Json(shape.middle).dump() << " + "
                          << Json(shape.close).dump() << " x k, " << completion.size() << " bytes"
                          << (partial ? ", partial" : ""));
                options["partial"] = partial;
                const double seconds = parse_seconds(*adapter, completion, options);
                slowest = std::max(slowest, seconds);
                ++parses;
                if (!kSanitized) CHECK(seconds <= kMaxSeconds);
            }
        }
    }
    WARN(parses << " nested parses of " << kShapeBytes / 1024 << " KB, the slowest " << slowest
                << " s");
}

TEST_CASE("chat_template parse: JsonExtents answers as json_extent does, at every start",
          "[chat_template][linear]") {
    // Texts of brackets, quotes and escapes, asked at every start in order (as the call search
    // asks) and then in a shuffled order: the kept tracks must give json_extent's answers.
    std::mt19937 random(28);
    static constexpr std::string_view alphabet = "{}[]\"'\\ a";
    for (int round = 0; round < 3000; ++round) {
        std::string text(1 + random() % 40, ' ');
        for (char& c : text) c = alphabet[random() % alphabet.size()];
        std::vector<std::size_t> starts(text.size());
        for (std::size_t i = 0; i < starts.size(); ++i) starts[i] = i;
        JsonExtents in_order(text);
        for (const std::size_t start : starts) {
            INFO(Json(text).dump() << " at " << start);
            REQUIRE(in_order.extent(start) == json_extent(text, start));
        }
        std::shuffle(starts.begin(), starts.end(), random);
        JsonExtents shuffled(text);
        for (const std::size_t start : starts) {
            INFO(Json(text).dump() << " at " << start << ", shuffled");
            REQUIRE(shuffled.extent(start) == json_extent(text, start));
        }
    }
}
