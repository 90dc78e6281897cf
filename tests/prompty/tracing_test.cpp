// Tracer fan-out, redaction, the JSON-lines record, usage hoisting, failing backends.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "cmfpipe/core/prompty/loader.hpp"
#include "cmfpipe/core/tracing.hpp"
#include "support/scratch.hpp"

using namespace cmfpipe;
using namespace cmfpipe::tracing;

namespace {

// Records "start name", "emit name key value", "end name".
class Recorder : public Backend {
  public:
    std::vector<std::string> events;
    std::unique_ptr<SpanSink> start(std::string_view name, SpanSink*) override {
        struct Sink : SpanSink {
            Recorder& r;
            std::string name;
            Sink(Recorder& r, std::string_view n) : r(r), name(n) {
                r.events.push_back("start " + name);
            }
            void emit(std::string_view key, const Json& value) override {
                r.events.push_back("emit " + name + " " + std::string(key) + " " + value.dump());
            }
            void end() override { r.events.push_back("end " + name); }
        };
        return std::make_unique<Sink>(*this, name);
    }
};

// Throws from start, emit or end.
class Throwing : public Backend {
  public:
    std::string where;
    explicit Throwing(std::string w) : where(std::move(w)) {}
    std::unique_ptr<SpanSink> start(std::string_view, SpanSink*) override {
        if (where == "start") throw std::runtime_error("start failed");
        struct Sink : SpanSink {
            std::string where;
            void emit(std::string_view, const Json&) override {
                if (where == "emit") throw std::runtime_error("emit failed");
            }
            void end() override {
                if (where == "end") throw 42;
            }
        };
        auto s = std::make_unique<Sink>();
        s->where = where;
        return s;
    }
};

}  // namespace

TEST_CASE("redaction: secret-like keys at any depth, counts and authors kept") {
    Json in = {{"apiKey", "sk"},
               {"nested",
                {{"api_key", "x"},
                 {"X-Api-Key", "y"},
                 {"client_secret", "z"},
                 {"list", {{{"password", "p"}}}}}},
               {"access_token", "t"},
               {"authToken", "a"},
               {"Authorization", "Bearer b"},
               {"cookies", "c"},
               {"usage", {{"prompt_tokens", 12}, {"completion_tokens", 3}, {"total_tokens", 15}}},
               {"max_tokens", 100},
               {"metadata", {{"authors", {"me"}}, {"keywords", {"k"}}}},
               {"key", "plain"}};
    CHECK(
        redact(in).dump() ==
        R"({"apiKey":"[REDACTED]","nested":{"api_key":"[REDACTED]","X-Api-Key":"[REDACTED]","client_secret":"[REDACTED]",)"
        R"("list":[{"password":"[REDACTED]"}]},"access_token":"[REDACTED]","authToken":"[REDACTED]",)"
        R"("Authorization":"[REDACTED]","cookies":"[REDACTED]",)"
        R"("usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15},"max_tokens":100,)"
        R"("metadata":{"authors":["me"],"keywords":["k"]},"key":"plain"})");
}

TEST_CASE("tracer: spans fan out to every backend, children nest, values are redacted first") {
    Tracer tracer;
    auto a = std::make_shared<Recorder>(), b = std::make_shared<Recorder>();
    tracer.add("a", a);
    tracer.add("b", b);
    {
        Span root = tracer.start("run");
        root.emit("inputs", {{"apiKey", "sk"}});
        Span child = root.child("load");
        child.emit("result", 1);
    }
    const std::vector<std::string> expected = {
        "start run",  R"(emit run inputs {"apiKey":"[REDACTED]"})",
        "start load", "emit load result 1",
        "end load",   "end run"};
    CHECK(a->events == expected);
    CHECK(b->events == expected);
    tracer.remove("a");
    CHECK(tracer.names() == std::vector<std::string>{"b"});
    tracer.clear();
    Span none = tracer.start("x");
    CHECK_FALSE(none.active());
}

TEST_CASE("tracer: a failing backend is cut off, the others and the operation go on") {
    // start: the root never opens; emit: the sink is dropped before the child; end: both ends
    // throw.
    for (auto [where, failures] :
         std::vector<std::pair<std::string, std::size_t>>{{"start", 1}, {"emit", 1}, {"end", 2}}) {
        Tracer tracer;
        auto good = std::make_shared<Recorder>();
        tracer.add("bad", std::make_shared<Throwing>(where));
        tracer.add("good", good);
        {
            Span s = tracer.start("op");
            s.emit("k", 1);
            Span c = s.child("inner");
        }
        CHECK(good->events == std::vector<std::string>{"start op", "emit op k 1", "start inner",
                                                       "end inner", "end op"});
        CHECK(tracer.failures() == failures);
    }
}

TEST_CASE("json-lines backend: one .tracy record per root span, usage hoisted") {
    const cmfpipe::testing::Scratch scratch;
    auto file = scratch.path("lines.jsonl");
    Tracer tracer;
    tracer.add("file", std::make_shared<JsonLinesBackend>(file));
    {
        Span root = tracer.start("run");
        root.emit("signature", "cmfpipe.run");
        root.emit("inputs", {{"path", "p.prompty"}, {"password", "x"}});
        {
            Span call = root.child("execute");
            call.emit("result", {{"usage", {{"prompt_tokens", 10}, {"completion_tokens", 2}}}});
        }
        {
            Span call = root.child("execute");
            call.emit("result", {{"usage", {{"prompt_tokens", 5}}}});
        }
        root.emit("result", "done");
    }
    std::ifstream in(file);
    std::string line;
    std::vector<Json> records;
    while (std::getline(in, line)) records.push_back(Json::parse(line));
    REQUIRE(records.size() == 1);
    const Json& r = records[0];
    CHECK(r["runtime"] == "cpp");
    CHECK(r["version"] == CMFPIPE_VERSION);
    const Json& t = r["trace"];
    CHECK(t["name"] == "run");
    CHECK(t["signature"] == "cmfpipe.run");
    CHECK(t["inputs"].dump() == R"({"path":"p.prompty","password":"[REDACTED]"})");
    CHECK(t["result"] == "done");
    CHECK(t["__time"]["start"].get<std::string>().size() == 24);
    CHECK(t["__time"]["duration"].is_number());
    REQUIRE(t["__frames"].size() == 2);
    CHECK(t["__frames"][0]["__usage"].dump() == R"({"prompt_tokens":10,"completion_tokens":2})");
    CHECK(t["__usage"].dump() == R"({"prompt_tokens":15,"completion_tokens":2})");
}

TEST_CASE("console backend and a traced load") {
    std::ostringstream out;
    Tracer tracer;
    tracer.add("console", std::make_shared<ConsoleBackend>(out));
    auto recorder = std::make_shared<Recorder>();
    tracer.add("rec", recorder);
    prompty::LoadOptions options;
    options.trace.tracer = &tracer;
    prompty::load_text("---\nname: traced\nmodel: m\n---\nbody", "t.prompty", ".", options);
    std::string text = out.str();
    CHECK(text.rfind("[cmfpipe] \u25b6 load\n[cmfpipe] \u25c0 load (", 0) == 0);
    CHECK(text.substr(text.size() - 4) == "ms)\n");
    CHECK(recorder->events.at(1) == R"(emit load signature "cmfpipe.prompty.load")");
    CHECK(recorder->events.at(2) == R"(emit load inputs {"path":"t.prompty"})");
    CHECK(
        recorder->events.at(3) ==
        R"(emit load result {"agent_name":"traced","model":"m","inputs":0,"template":{"format":{"kind":"jinja2"},"parser":{"kind":"prompty"}}})");
}

TEST_CASE("redaction by value: a known secret goes wherever it appears, short ones only whole") {
    const std::vector<std::string> values = {"s3cr3t-value", "42"};
    CHECK(
        redact({{"a", "s3cr3t-value"},
                {"b", {"x s3cr3t-value y s3cr3t-value"}},
                {"c", "42"},
                {"d", "version 42.1"},
                {"n", 42}},
               values)
            .dump() ==
        R"({"a":"[REDACTED]","b":["x [REDACTED] y [REDACTED]"],"c":"[REDACTED]","d":"version 42.1","n":42})");
    CHECK(redact("nothing known", {}).dump() == R"("nothing known")");
}

TEST_CASE("a traced load registers the values ${env:} read: no span shows them, its own included") {
    Tracer tracer;
    auto recorder = std::make_shared<Recorder>();
    tracer.add("rec", recorder);
    prompty::LoadOptions options;
    options.trace.tracer = &tracer;
    options.allowed_env = {"MODEL_KEY"};
    options.environment = [](std::string_view) -> std::optional<std::string> {
        return std::string("sk-live-9f8e7d");
    };
    prompty::load_text("---\nname: traced\nmodel: ${env:MODEL_KEY}\n---\nbody", "t.prompty", ".",
                       options);
    CHECK(
        recorder->events.at(3) ==
        R"(emit load result {"agent_name":"traced","model":"[REDACTED]","inputs":0,"template":{"format":{"kind":"jinja2"},"parser":{"kind":"prompty"}}})");
    CHECK(tracer.redacted_values() == std::vector<std::string>{"sk-live-9f8e7d"});
    {
        Span later = tracer.start("request");
        later.emit("inputs", {{"prompt", "use sk-live-9f8e7d please"}});
    }
    CHECK(recorder->events.at(recorder->events.size() - 2) ==
          R"(emit request inputs {"prompt":"use [REDACTED] please"})");
}
