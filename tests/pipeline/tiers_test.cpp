// apply_returned(): the tier rules on a processor's returned copy, against the reference
// implementation's own tier cases (corpus) and on the cases the reference does not cover.
#include <catch2/catch.hpp>

#include "cmfpipe/cmf/capabilities.hpp"
#include "cmfpipe/core/files.hpp"
#include "cmfpipe/core/pipeline/tiers.hpp"
#include "fixture.hpp"
#include "plugins/recording.hpp"
#include "support/corpus.hpp"

using namespace pipeline_test;
using pl::apply_returned;
using pl::SlotViolation;
using pl::WriteRights;

namespace {

cmf::Message with_ext(const Json& ext) {
    return cmf::Message(cmf::Role::user, {cmf::ContentPart::text("x")}, std::nullopt,
                        std::make_shared<const cmf::Extensions>(cmf::extensions_from_json(ext)));
}

WriteRights rights_of(const cmf::CapabilitySet& caps) {
    return {caps.has(cmf::Capability::write_headers), caps.has(cmf::Capability::append_labels)};
}

}  // namespace

TEST_CASE("tier conformance: every tier case of the reference implementation") {
    const auto file =
        cmfpipe::testing::require_corpus("cmf") / "python_reference_tiers_filter_validation.json";
    const Json corpus = cmfpipe::read_json_file(file);
    REQUIRE(corpus["tier_cases"].size() == 12);
    for (const auto& c : corpus["tier_cases"]) {
        const std::string name = c["name"];
        DYNAMIC_SECTION(name) {
            // Parsed separately, so every slot of `after` is a new pointer: value comparison
            // decides.
            const cmf::Message before = with_ext(c["before"]);
            const cmf::Message returned = before.with_extensions(
                std::make_shared<const cmf::Extensions>(cmf::extensions_from_json(c["after"])));
            const auto caps =
                cmf::CapabilitySet::parse(c["capabilities"].get<std::vector<std::string>>());
            const auto out = apply_returned(before, before, returned, rights_of(caps));
            const Json& expected = c["validate_tier_constraints"];
            if (expected == "ok") {
                CHECK(out.violations.empty());
                CHECK(out.changed);
                const auto merged = cmf::extensions_from_json(c["merge_extensions"]["result"]);
                CHECK(Json(out.message.extensions()) == Json(merged));
            } else {
                REQUIRE(out.violations.size() == 1);
                const auto& v = out.violations[0];
                CHECK(v.slot == expected["slot"]);
                // The reference calls http's tier "immutable"; it is guarded (spec §3.2).
                CHECK(v.tier == (v.slot == "http" ? std::string("guarded")
                                                  : expected["tier"].get<std::string>()));
                CHECK_THAT(v.detail, Catch::StartsWith(expected["detail"].get<std::string>()));
                CHECK_FALSE(out.changed);
                CHECK(out.message.extensions_ptr() == before.extensions_ptr());
            }
        }
    }
}

TEST_CASE("tier details name what was removed or added") {
    const auto before = with_ext({{"security", {{"labels", {"A", "B", "C"}}}}});
    auto returned = before.with_extensions(std::make_shared<const cmf::Extensions>(
        cmf::extensions_from_json({{"security", {{"labels", {"B", "D"}}}}})));
    auto out = apply_returned(before, before, returned, {});
    CHECK(out.violations ==
          std::vector<SlotViolation>{
              {"security.labels", "monotonic", "monotonic slot had elements removed: A, C"},
              {"security.labels", "monotonic",
               "plugin lacks 'append_labels' capability (added: D)"}});
}

TEST_CASE("every violated slot is reported, and nothing of the copy is kept") {
    const auto before = with_ext({{"request", {{"request_id", "r1"}}},
                                  {"security", {{"classification", "secret"}, {"labels", {"X"}}}},
                                  {"custom", {{"a", 1}}}});
    auto ext = before.extensions();
    ext.request =
        std::make_shared<const cmf::RequestExtension>(cmf::RequestExtension{{}, "r2", {}, {}, {}});
    auto security = std::make_shared<cmf::SecurityExtension>(*before.security());
    security->classification = "public";
    ext.security = security;
    ext.custom = std::make_shared<const Json>(Json{{"a", 2}});
    const auto returned = before.with_role(cmf::Role::system)
                              .with_part(0, cmf::ContentPart::text("changed"))
                              .with_extensions(std::make_shared<const cmf::Extensions>(ext));
    auto out = apply_returned(before, before, returned, {true, true});
    CHECK(out.violations ==
          std::vector<SlotViolation>{
              {"role", "immutable", "the role of a message cannot be changed"},
              {"request", "immutable", "slot has no write capability and cannot be modified"},
              {"security.classification", "immutable",
               "slot has no write capability and cannot be modified"}});
    CHECK_FALSE(out.changed);
    CHECK(out.message.content_ptr() == before.content_ptr());
    CHECK(out.message.extensions_ptr() == before.extensions_ptr());
}

TEST_CASE("a slot rebuilt with equal values is no change, and the current slot is kept") {
    const auto before = with_ext({{"request", {{"request_id", "r1"}}}, {"custom", {{"a", 1}}}});
    auto ext = before.extensions();
    ext.request = std::make_shared<const cmf::RequestExtension>(*before.request());  // equal copy
    const auto returned = before.with_extensions(std::make_shared<const cmf::Extensions>(ext));
    auto out = apply_returned(before, before, returned, {});
    CHECK(out.violations.empty());
    CHECK_FALSE(out.changed);
    CHECK(out.message.request() == before.request());
}

TEST_CASE(
    "what a processor was not given is carried over untouched, and labels join the full slot") {
    // The processor saw only labels (no subject, no data); it adds one label.
    const auto current =
        with_ext({{"security",
                   {{"labels", {"INTERNAL"}},
                    {"subject", {{"id", "alice"}, {"type", "user"}, {"roles", {"dev"}}}},
                    {"data", {{"tool_a", {{"apply_labels", {"PII"}}}}}}}},
                  {"agent", {{"session_id", "s1"}}}});
    auto seen = std::make_shared<cmf::SecurityExtension>();
    seen->labels = current.security()->labels;
    const auto given = current.with_security(seen).with_agent(nullptr);
    const auto returned = given.with_labels_added({"PII"});
    auto out = apply_returned(current, given, returned, {false, true});
    REQUIRE(out.violations.empty());
    CHECK(out.changed);
    CHECK(out.message.security()->labels == cmf::StringSet{"INTERNAL", "PII"});
    CHECK(out.message.security()->subject == current.security()->subject);  // same pointer
    CHECK(out.message.security()->data == current.security()->data);
    CHECK(out.message.agent() == current.agent());
    CHECK(out.message.content_ptr() == current.content_ptr());
}

TEST_CASE("content and channel are mutable, custom may be removed") {
    const auto before = with_ext({{"custom", {{"a", 1}}}});
    const auto returned = before.with_part(0, cmf::ContentPart::text("redacted"))
                              .with_channel(cmf::Channel::final)
                              .with_custom(nullptr);
    auto out = apply_returned(before, before, returned, {});
    CHECK(out.violations.empty());
    CHECK(out.changed);
    CHECK(out.message.text_content() == "redacted");
    CHECK(out.message.channel() == cmf::Channel::final);
    CHECK(out.message.custom() == nullptr);
}

TEST_CASE(
    "only the labels a processor added join the current slot, and changes merge into one record") {
    // The processor was shown labels the current slot lacks (B): it added C and Z only.
    const auto current = with_ext(
        {{"security", {{"labels", {"A", "M"}}}}, {"http", {{"headers", {{"X-Id", "1"}}}}}});
    auto seen = std::make_shared<cmf::SecurityExtension>();
    seen->labels = {"A", "B", "M"};
    const auto given = current.with_security(seen);
    const auto returned = given.with_labels_added({"C", "Z"})
                              .with_http(std::make_shared<const cmf::HttpExtension>(
                                  cmf::HttpExtension{cmf::OrderedMap<std::string>{{"X-Id", "2"}}}))
                              .with_custom(std::make_shared<const Json>(Json{{"k", "v"}}));
    auto out = apply_returned(current, given, returned, {true, true});
    REQUIRE(out.violations.empty());
    CHECK(out.changed);
    CHECK(out.message.security()->labels == cmf::StringSet{"A", "C", "M", "Z"});
    CHECK(out.message.http() == returned.http());
    CHECK(out.message.custom() == returned.custom());
    CHECK(out.message.content_ptr() == current.content_ptr());
    CHECK(current.security()->labels == cmf::StringSet{"A", "M"});  // untouched

    // Without write_headers the whole copy is rejected, labels and custom included.
    auto refused = apply_returned(current, given, returned, {false, true});
    CHECK(
        refused.violations ==
        std::vector<SlotViolation>{{"http", "guarded", "plugin lacks 'write_headers' capability"}});
    CHECK_FALSE(refused.changed);
    CHECK(refused.message.extensions_ptr() == current.extensions_ptr());
}

// Signed reasoning (issue 27, point 4): a sealed thinking part is immutable inside mutable content.
namespace {

cmf::PartPtr sealed(std::string text, std::string signature) {
    return cmf::ContentPart::thinking(std::move(text), std::move(signature));
}

// [sealed S1, text, sealed S2, unsealed thinking]
cmf::Message signed_turn() {
    return cmf::Message(cmf::Role::assistant,
                        {sealed("mail bob@example.com", "S1"), cmf::ContentPart::text("hi"),
                         sealed("second", "S2"), cmf::ContentPart::thinking("free")});
}

cmf::Message with_content(const cmf::Message& m, cmf::Content content) {
    return m.with_content(std::move(content));
}

std::vector<SlotViolation> sealed_violation(std::string detail) {
    return {{"content.thinking", "immutable", std::move(detail)}};
}

}  // namespace

TEST_CASE("a sealed thinking part may not be changed, unsealed, removed, reordered or forged") {
    const cmf::Message before = signed_turn();
    const cmf::Content& c = before.content();
    struct Case {
        const char* name;
        cmf::Content content;
        std::string detail;
    };
    const std::vector<Case> cases{
        {"text edited, signature kept",
         {sealed("mail [REDACTED:EMAIL]", "S1"), c[1], c[2], c[3]},
         "the text of the sealed thinking part content[0] was changed (the provider refuses an "
         "edited signed block)"},
        {"edited and unsealed (the signature dropped)",
         {cmf::ContentPart::thinking("mail [REDACTED:EMAIL]"), c[1], c[2], c[3]},
         "the sealed thinking part content[0] was changed, unsealed or removed"},
        {"redacted flag set",
         {cmf::ContentPart::make(cmf::Thinking{"mail bob@example.com", "S1", true}), c[1], c[2],
          c[3]},
         "the sealed thinking part content[0] was changed (the provider refuses an edited signed "
         "block)"},
        {"removed",
         {c[1], c[2], c[3]},
         "the sealed thinking part content[0] was changed, unsealed or removed"},
        {"re-signed",
         {sealed("mail bob@example.com", "S9"), c[1], c[2], c[3]},
         "content[0] carries a signature the message did not have (a provider's signature cannot "
         "be forged or replaced)"},
        {"reordered",
         {c[2], c[1], c[0], c[3]},
         "the sealed thinking parts were reordered (content[0])"},
        {"forged: a sealed part added",
         {c[0], c[1], c[2], c[3], sealed("made up", "F")},
         "content[4] carries a signature the message did not have (a provider's signature cannot "
         "be forged or replaced)"},
        {"duplicated",
         {c[0], c[0], c[1], c[2], c[3]},
         "the sealed thinking parts were reordered (content[2])"},
    };
    for (const Case& k : cases) {
        DYNAMIC_SECTION(k.name) {
            const cmf::Message returned =
                with_content(before, k.content).with_labels_added({"PII"});
            const auto out = apply_returned(before, before, returned, {false, true});
            CHECK(out.violations == sealed_violation(k.detail));
            // Rejected whole: the label and the other parts' changes go with it.
            CHECK_FALSE(out.changed);
            CHECK(out.message.content_ptr() == before.content_ptr());
            CHECK(out.message.extensions_ptr() == before.extensions_ptr());
        }
    }
}

TEST_CASE("around sealed thinking content stays mutable, and unsealed thinking is mutable") {
    const cmf::Message before = signed_turn();
    const cmf::Content& c = before.content();
    // Text redacted, unsealed thinking rewritten, a part added and one removed between the sealed.
    const cmf::Message returned = with_content(before, {cmf::ContentPart::text("new"), c[0], c[2],
                                                        cmf::ContentPart::thinking("rewritten")});
    const auto out = apply_returned(before, before, returned, {});
    CHECK(out.violations.empty());
    CHECK(out.changed);
    CHECK(out.message.content() == returned.content());
    // The sealed parts rebuilt equal (a processor that copies every part) are no change of them.
    const cmf::Message rebuilt =
        with_content(before, {sealed("mail bob@example.com", "S1"), cmf::ContentPart::text("hello"),
                              sealed("second", "S2"), c[3]});
    const auto kept = apply_returned(before, before, rebuilt, {});
    CHECK(kept.violations.empty());
    CHECK(kept.message.text_content() == "hello");
}

TEST_CASE("a thinking part sealed with the pending stand-in (a streamed block) is immutable") {
    const cmf::Message before(cmf::Role::assistant,
                              {sealed("so far bob@example.com", cmf::Thinking::pending_signature)});
    const auto out = apply_returned(
        before, before,
        before.with_part(0, sealed("so far [REDACTED:EMAIL]", cmf::Thinking::pending_signature)),
        {});
    CHECK(out.violations == sealed_violation("the text of the sealed thinking part content[0] was "
                                             "changed (the provider refuses an edited signed "
                                             "block)"));
}

TEST_CASE(
    "a processor's change to sealed thinking is rejected and reported as any immutable slot") {
    cmfpipe::Registry reg;
    reg.add_builtin(cmfpipe_builtin_recording());
    const std::vector<cmf::Message> turn{
        signed_turn(),
        cmf::Message(cmf::Role::assistant, {cmf::ContentPart::thinking("unsealed")})};
    const Json violation = {
        {"processor", "editor"},
        {"kind", "edit_thinking"},
        {"hook", "llm_input"},
        {"message", 0},
        {"mode", "enforce"},
        {"outcome", "violation"},
        {"effect", "stopped"},
        {"violations",
         {{{"slot", "content.thinking"},
           {"tier", "immutable"},
           {"detail",
            "the text of the sealed thinking part content[0] was changed (the provider refuses "
            "an edited signed block)"}}}}};

    SECTION("enforce: the run stops there") {
        const auto result =
            pipeline("processors:\n  - {name: editor, kind: edit_thinking, hooks: [llm_input]}\n",
                     reg)
                .run("llm_input", turn);
        CHECK(result.stopped);
        CHECK(decisions(result) == Json::array({violation}));
        CHECK(result.messages[0] == turn[0]);
    }
    SECTION(
        "permissive: the copy is rejected, the message goes on as it was, unsealed ones change") {
        const auto result = pipeline(
                                "processors:\n  - {name: editor, kind: edit_thinking, hooks: "
                                "[llm_input], mode: permissive}\n",
                                reg)
                                .run("llm_input", turn);
        CHECK_FALSE(result.stopped);
        Json rejected = violation;
        rejected["mode"] = "permissive";
        rejected["effect"] = "rejected";
        Json applied = {{"processor", "editor"}, {"kind", "edit_thinking"}, {"hook", "llm_input"},
                        {"message", 1},          {"mode", "permissive"},    {"outcome", "modified"},
                        {"effect", "applied"}};
        CHECK(decisions(result) == Json::array({rejected, applied}));
        CHECK(result.messages[0] == turn[0]);
        CHECK(result.messages[1].part(0)->get<cmf::Thinking>().text == "unsealed (edited)");
    }
}
