// Frontmatter splitting, YAML with positions, references, Agent building, validation.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>

#include "cmfpipe/core/prompty/frontmatter.hpp"
#include "cmfpipe/core/prompty/loader.hpp"
#include "cmfpipe/core/prompty/validation.hpp"
#include "cmfpipe/errors.hpp"
#include "support/scratch.hpp"
#include "support/thrown.hpp"

using namespace cmfpipe;
using namespace cmfpipe::prompty;
namespace fs = std::filesystem;
using cmfpipe::testing::Scratch;

namespace {

EnvironmentLookup env_of(std::map<std::string, std::string> vars) {
    return [vars](std::string_view name) -> std::optional<std::string> {
        auto it = vars.find(std::string(name));
        if (it == vars.end()) return std::nullopt;
        return it->second;
    };
}

// A hermetic environment: ${env:} may read its variables and the unset names in `also_allowed`.
LoadOptions with_env(std::map<std::string, std::string> vars,
                     std::vector<std::string> also_allowed = {}) {
    LoadOptions o;
    o.allowed_env = std::move(also_allowed);
    for (const auto& entry : vars) o.allowed_env.push_back(entry.first);
    o.environment = env_of(std::move(vars));
    return o;
}

std::string error_of(const std::function<void()>& action) {
    return cmfpipe::testing::thrown_error(action);
}

}  // namespace

TEST_CASE("frontmatter: the spec's four splitting vectors") {
    auto a = split_frontmatter("---\nname: test\n---\nHello world", "f");
    CHECK(*a.frontmatter == "\nname: test\n");
    CHECK(a.body == "Hello world");
    CHECK(a.body_line == 4);

    auto b = split_frontmatter("Just a prompt with no frontmatter", "f");
    CHECK_FALSE(b.frontmatter.has_value());
    CHECK(b.body == "Just a prompt with no frontmatter");

    auto c = split_frontmatter("---\n---\nBody only", "f");
    CHECK(*c.frontmatter == "\n");
    CHECK(c.body == "Body only");

    auto d = split_frontmatter("  ---\nname: test\n---\nBody", "f");
    CHECK(*d.frontmatter == "\nname: test\n");
    CHECK(d.frontmatter_line == 1);
    CHECK(d.frontmatter_column == 6);
    CHECK(d.body == "Body");
}

TEST_CASE(
    "frontmatter: '+++' delimiters, body whitespace stripped, unclosed is an error at the opener") {
    auto a = split_frontmatter("+++\nname: x\n+++\n\n\nsystem:\nHi\n\n", "f");
    CHECK(*a.frontmatter == "\nname: x\n");
    CHECK(a.body == "system:\nHi");
    CHECK(a.body_line == 6);
    // A '---' inside a value does not close the frontmatter (it must start a line).
    auto b = split_frontmatter("---\ndescription: a---b\n---\nx", "f");
    CHECK(*b.frontmatter == "\ndescription: a---b\n");
    CHECK(
        error_of([] { split_frontmatter("\n  ---\nname: x\n", "p.prompty"); }) ==
        "ValueError: p.prompty:2:3: Malformed frontmatter: no closing '---' (or '+++') delimiter");
}

TEST_CASE("yaml: core-schema scalars, quoted strings stay strings, order kept") {
    Json j = parse_yaml(
        "b: 1\na: 2.5\nc: true\nd: ~\ne: '7'\nf: 0x1F\ng: 1e3\nh: hello\ni: [1, x]\nj: -4\n", "f");
    CHECK(
        j.dump() ==
        R"({"b":1,"a":2.5,"c":true,"d":null,"e":"7","f":31,"g":1000.0,"h":"hello","i":[1,"x"],"j":-4})");
}

TEST_CASE("yaml: a syntax error is located in the file, offset by where the frontmatter starts") {
    // Line 3 of the file holds the broken flow sequence.
    CHECK(error_of([] {
              load_text("---\nname: ok\nmodel: [gpt\n---\nbody", "p.prompty", ".");
          }).rfind("ValueError: p.prompty:4:1: invalid frontmatter YAML: ", 0) == 0);
}

TEST_CASE("load: a full agent from text, with every field and unknown keys kept") {
    const char* text = R"(---
name: full
displayName: Full Agent
description: Everything
metadata:
  authors: [me]
  tags: [a]
model:
  id: gpt-4o
  provider: openai
  apiType: chat
  connection:
    kind: key
    endpoint: ${env:EP}
    apiKey: ${env:KEY:fallback}
  options:
    temperature: 0.2
  deployment: eu
inputs:
  - name: question
    kind: string
    required: true
    example: What?
  - name: history
    kind: thread
outputs:
  answer: a string
tools:
  - name: lookup
    kind: function
    description: Look up
    parameters:
      properties:
        - name: q
          kind: string
    bindings:
      q: fixed
template:
  format:
    kind: mustache
    strict: true
    options: {partials: {}}
  parser: prompty
owner: team-x
---
system:
Hi {{question}}
)";
    Agent a = load_text(text, "full.prompty", ".", with_env({{"EP", "https://ep"}}, {"KEY"}));
    CHECK(a.body_line == 46);
    Json j = to_json(a);
    CHECK(
        j.dump() ==
        R"({"kind":"prompt","name":"full","displayName":"Full Agent","description":"Everything",)"
        R"("metadata":{"authors":["me"],"tags":["a"]},)"
        R"("model":{"id":"gpt-4o","provider":"openai","apiType":"chat","connection":{"kind":"key","endpoint":"https://ep","apiKey":"fallback"},"options":{"temperature":0.2},"deployment":"eu"},)"
        R"("inputs":[{"name":"question","kind":"string","required":true,"example":"What?"},{"name":"history","kind":"thread"}],)"
        R"("outputs":[{"name":"answer","kind":"string","default":"a string"}],)"
        R"("tools":[{"name":"lookup","kind":"function","description":"Look up","parameters":[{"name":"q","kind":"string"}],"bindings":{"q":"fixed"}}],)"
        R"("template":{"format":{"kind":"mustache","strict":true,"options":{"partials":{}}},"parser":{"kind":"prompty"}},)"
        R"("instructions":"system:\nHi {{question}}","owner":"team-x"})");
}

TEST_CASE("load: shorthands and defaults") {
    Agent a = load_text(
        "---\nmodel: gpt-4\ninputs:\n  name: Jane\n  n: 3\n  x: 1.5\n  ok: false\n  l: [1]\n  o: "
        "{kind: object, default: {a: 1}}\n---\nb",
        "s.prompty", ".");
    CHECK(a.model->id == "gpt-4");
    REQUIRE(a.inputs->size() == 6);
    std::string kinds;
    for (const auto& p : *a.inputs)
        kinds += p.name + ":" + p.kind + ":" + p.default_value.dump() + " ";
    CHECK(kinds ==
          "name:string:\"Jane\" n:integer:3 x:float:1.5 ok:boolean:false l:array:[1] "
          "o:object:{\"a\":1} ");
    CHECK(a.template_config.format_kind == "jinja2");
    CHECK(a.template_config.parser_kind == "prompty");
    CHECK_FALSE(a.tools.has_value());

    Agent legacy = load_text(
        "---\ninputSchema:\n  properties:\n    topic:\n      kind: string\n      default: "
        "x\n---\nb",
        "l", ".");
    CHECK(to_json(*legacy.inputs).dump() == R"([{"name":"topic","kind":"string","default":"x"}])");

    Agent no_frontmatter = load_text("just text", "t", ".");
    CHECK(no_frontmatter.instructions == "just text");
    CHECK(no_frontmatter.name.empty());
}

TEST_CASE("load: errors say what and where") {
    CHECK(error_of([] { load_text("---\nname: t\ntemplate: jinja2\n---\nb", "t.prompty", "."); }) ==
          "ValueError: t.prompty:3:11: Invalid template format: 'template' must be a mapping with "
          "format/parser, not the string 'jinja2'");
    CHECK(error_of([] {
              load_text("---\nmodel:\n  connection:\n    endpoint: ${env:NOPE}\n---\nb",
                        "e.prompty", ".", with_env({}, {"NOPE"}));
          }) == "ValueError: e.prompty:4:15: Environment variable 'NOPE' not set");
    CHECK(error_of([] { load_text("---\n- a\n- b\n---\nb", "m.prompty", "."); }) ==
          "ValueError: m.prompty:2:1: Frontmatter must be a YAML mapping");
    CHECK(error_of([] { load_text("---\ninputs:\n  - kind: string\n---\nb", "i.prompty", "."); }) ==
          "ValueError: i.prompty:3:5: inputs entry 0 has no name");
    // Type mistakes come from the one JsonReader: its path, at the value's place in the file.
    CHECK(error_of([] {
              load_text("---\nmodel:\n  id: m\n  options: [1]\n---\nb", "o.prompty", ".");
          }) ==
          "ValueError: o.prompty:4:12: $.model.options: expected an object or null, got array");
    CHECK(error_of([] { load_text("---\ntools: {a: 1}\n---\nb", "t.prompty", "."); }) ==
          "ValueError: t.prompty:2:8: $.tools: expected an array, got object");
    CHECK(error_of([] {
              load_text("---\ntemplate:\n  format: {kind: jinja2, strict: yes}\n---\nb",
                        "s.prompty", ".");
          }) ==
          "ValueError: s.prompty:3:34: $.template.format.strict: expected a boolean, got "
          "string");
    CHECK(error_of([] { load_text("---\nname: [a]\n---\nb", "n.prompty", "."); }) ==
          "ValueError: n.prompty:2:7: $.name: expected a string, got array");
    const Scratch scratch;  // a file that does not exist, in a folder that does
    const std::string missing = scratch.path("x.prompty").string();
    CHECK(error_of([&] { load(missing); }) ==
          "ValueError: " + missing + ": File not found: " + missing);
}

TEST_CASE("references: ${file:} parses by extension, stays inside the prompt's tree") {
    const Scratch scratch;
    scratch.write("app/sub/conn.json", R"({"kind": "key", "apiKey": "${env:K}"})");
    scratch.write("app/sub/opts.yaml", "temperature: 0.5\n");
    scratch.write("app/notes.txt", "plain ${env:K}\n");
    scratch.write("secret.json", R"({"leak": true})");
    fs::create_directories(scratch.dir / "app");
    fs::create_symlink(scratch.dir / "secret.json", scratch.dir / "app" / "link.json");
    auto prompt =
        scratch.write("app/p.prompty",
                      "---\nmodel:\n  id: m\n  connection: ${file:sub/conn.json}\n  options: "
                      "${file:sub/opts.yaml}\n"
                      "description: ${file:notes.txt}\n---\nb");
    Agent a = load(prompt, with_env({{"K", "k1"}}));
    CHECK(a.model->connection.dump() == R"({"kind":"key","apiKey":"k1"})");
    CHECK(a.model->options.dump() == R"({"temperature":0.5})");
    CHECK(*a.description == "plain ${env:K}\n");

    auto escape = [&](const std::string& ref) {
        return error_of([&] {
            load(scratch.write("app/e.prompty", "---\nname: ${file:" + ref + "}\n---\nb"));
        });
    };
    CHECK(escape("../secret.json")
              .find("e.prompty:2:7: '../secret.json' resolves outside allowed roots") !=
          std::string::npos);
    CHECK(escape("link.json").find("'link.json' resolves outside allowed roots") !=
          std::string::npos);
    CHECK(escape((scratch.dir / "secret.json").string()).find("resolves outside allowed roots") !=
          std::string::npos);
    CHECK(escape("missing.json").find("e.prompty:2:7: Referenced file not found: missing.json") !=
          std::string::npos);

    // A host may grant a root; the frontmatter cannot.
    LoadOptions granted;
    granted.allowed_roots = {scratch.dir};
    Agent b = load(scratch.write("app/g.prompty", "---\nmetadata: ${file:../secret.json}\n---\nb"),
                   granted);
    CHECK(b.metadata.dump() == R"({"leak":true})");
}

TEST_CASE(
    "references: env default is everything after the second colon, and unknown protocols stay") {
    Agent a = load_text("---\nname: ${env:U:a:b}\ndescription: ${vault:x}\n---\nb", "r", ".",
                        with_env({}, {"U"}));
    CHECK(a.name == "a:b");
    CHECK(*a.description == "${vault:x}");
}

TEST_CASE("validate_inputs: defaults, required, optional omitted, no type checks, extras pass") {
    Agent a = load_text(
        "---\ninputs:\n  - {name: a, kind: string, default: A}\n  - {name: b, kind: integer, "
        "required: true}\n"
        "  - {name: c, kind: string, example: sample}\n---\nb",
        "v.prompty", ".");
    CHECK(validate_inputs(a, {{"b", "not a number"}, {"extra", 1}}).dump() ==
          R"({"b":"not a number","extra":1,"a":"A"})");
    CHECK(error_of([&] { validate_inputs(a, Json::object()); }) ==
          "ValueError: v.prompty: Missing required input: b");
    CHECK(error_of([&] { validate_inputs(a, Json::array()); }) ==
          "ValueError: inputs must be a JSON object of name -> value, not array");
}

TEST_CASE("load: scalars read as text, extras keep what was not read") {
    Agent a = load_text("---\nname: 42\ninputs: [{name: x}]\ninputSchema: {y: 1}\nfoo: bar\n---\nb",
                        "a", ".");
    CHECK(a.name == "42");
    CHECK(to_json(*a.inputs).dump() == R"([{"name":"x","kind":"string"}])");
    // `inputs` wins, so the legacy `inputSchema` was not read and stays an extra.
    CHECK(a.extra.dump() == R"({"inputSchema":{"y":1},"foo":"bar"})");
    Agent legacy = load_text("---\ninputSchema: {y: 1}\nfoo: bar\n---\nb", "l", ".");
    CHECK(legacy.extra.dump() == R"({"foo":"bar"})");
}

TEST_CASE(
    "references: ${env:} refuses a name the host did not allow, default or not, at its place") {
    const std::string refused =
        "Environment variable 'SECRET' is not allowed: a .prompty reads only the variables its "
        "host allows (cmfpipe: --allow-env SECRET)";
    CHECK(error_of([] {
              load_text("---\nname: ${env:SECRET}\n---\nb", "s.prompty", ".",
                        with_env({{"OTHER", "x"}}));
          }) == "ValueError: s.prompty:2:7: " + refused);
    LoadOptions unset_secret = with_env({{"OTHER", "x"}});
    unset_secret.environment = env_of({{"SECRET", "s3cr3t"}});  // set, yet not allowed
    CHECK(error_of([&] {
              load_text("---\nname: ok\ndescription: ${env:SECRET:fallback}\n---\nb", "d.prompty",
                        ".", unset_secret);
          }) == "ValueError: d.prompty:3:14: " + refused);
    // Nothing allowed (the default LoadOptions): every reference is refused.
    CHECK(error_of([] { load_text("---\nname: ${env:SECRET}\n---\nb", "n.prompty", "."); }) ==
          "ValueError: n.prompty:2:7: " + refused);
}

TEST_CASE("load: the values ${env:} read are kept on the agent for trace redaction, not defaults") {
    Agent a = load_text("---\nname: ${env:A}\ndescription: ${env:B:from-the-file}\n---\nb", "v",
                        ".", with_env({{"A", "value-of-a"}}, {"B"}));
    CHECK(a.name == "value-of-a");
    CHECK(*a.description == "from-the-file");
    CHECK(a.environment_values == std::vector<std::string>{"value-of-a"});
}

TEST_CASE("load: ${file:} of a symlinked .prompty resolves against the real file's folder") {
    const Scratch scratch;
    scratch.write("secrets/secret.txt", "top secret");
    scratch.write("prompts/data.txt", "public data");
    scratch.write("prompts/steal.prompty", "---\ndescription: ${file:secret.txt}\n---\nb");
    scratch.write("prompts/read.prompty", "---\ndescription: ${file:data.txt}\n---\nb");
    fs::create_symlink(scratch.dir / "prompts/steal.prompty",
                       scratch.dir / "secrets/steal.prompty");
    fs::create_symlink(scratch.dir / "prompts/read.prompty", scratch.dir / "secrets/read.prompty");
    const fs::path real = fs::canonical(scratch.dir / "prompts");
    CHECK(error_of([&] { load(scratch.dir / "secrets/steal.prompty"); }) ==
          "ValueError: " + (scratch.dir / "secrets/steal.prompty").string() +
              ":2:14: Referenced file not found: secret.txt (" + (real / "secret.txt").string() +
              ")");
    CHECK(*load(scratch.dir / "secrets/read.prompty").description == "public data");
}

TEST_CASE("validate_inputs: a required input given as null is a ValueError naming it") {
    Agent a = load_text(
        "---\ninputs:\n  - {name: q, kind: string, required: true}\n  - {name: o, kind: "
        "string}\n---\nb",
        "n.prompty", ".");
    CHECK(error_of([&] {
              validate_inputs(a, {{"q", nullptr}});
          }) == "ValueError: n.prompty: Required input is null: q");
    // An optional input may be null: the template decides what that means.
    CHECK(validate_inputs(a, {{"q", "x"}, {"o", nullptr}}).dump() == R"({"q":"x","o":null})");
}

TEST_CASE("load: an empty .prompty, or one with nothing after its frontmatter, names the file") {
    const Scratch scratch;
    const fs::path empty = scratch.write("empty.prompty", "");
    CHECK(error_of([&] { load(empty); }) ==
          "ValueError: " + empty.string() + ": Empty .prompty: no frontmatter and no template");
    CHECK(error_of([] { load_text(" \n\t\n", "blank.prompty", "."); }) ==
          "ValueError: blank.prompty: Empty .prompty: no frontmatter and no template");
    CHECK(error_of([] { load_text("---\nname: x\n---\n\n", "fm.prompty", "."); }) ==
          "ValueError: fm.prompty: No template: nothing follows the frontmatter");
}
