// What a processor is shown (cmf::filter_message): nothing it did not declare, including inside
// nested messages.
#include <catch2/catch.hpp>

#include "cmfpipe/cmf/filter.hpp"
#include "cmfpipe/core/pipeline/tiers.hpp"
#include "fixture.hpp"

using namespace pipeline_test;
using cmf::filter_message;

namespace {

const Json secret_ext = {{"security",
                          {{"labels", {"SECRET"}},
                           {"subject", {{"id", "alice"}, {"type", "user"}, {"roles", {"admin"}}}},
                           {"objects", {{"t", {{"managed_by", "host"}}}}},
                           {"data", {{"t", {{"apply_labels", {"PII"}}}}}}}}};

cmf::Message nested_message() {
    return cmf::Message(
        cmf::Role::user, {cmf::ContentPart::text("inner")}, std::nullopt,
        std::make_shared<const cmf::Extensions>(cmf::extensions_from_json(secret_ext)));
}

cmf::Message with_prompt_result() {
    cmf::PromptResult result{"p1",         "summarize", {nested_message()},
                             std::nullopt, false,       std::nullopt};
    return cmf::Message(cmf::Role::tool,
                        {cmf::ContentPart::text("outer"), cmf::ContentPart::make(result)});
}

const cmf::Message& nested_in(const cmf::Message& m) {
    return m.part(1)->get<cmf::PromptResult>().messages[0];
}

}  // namespace

TEST_CASE(
    "objects and data need read_objects and read_data, labels read_labels, the subject "
    "read_subject") {
    const auto m = nested_message();
    const auto none = filter_message(m, {});
    REQUIRE(none.security());
    CHECK(none.security()->objects == nullptr);
    CHECK(none.security()->data == nullptr);
    CHECK(none.security()->labels.empty());
    CHECK(none.security()->subject == nullptr);

    const auto granted =
        filter_message(m, {cmf::Capability::read_objects, cmf::Capability::read_data});
    CHECK(granted.security()->objects == m.security()->objects);  // shared, not copied
    CHECK(granted.security()->data == m.security()->data);

    const auto all = filter_message(m, cmf::CapabilitySet::all());
    CHECK(all.extensions_ptr() == m.extensions_ptr());
}

TEST_CASE("messages nested in a prompt result are filtered like the message itself") {
    const auto m = with_prompt_result();
    const auto shown = filter_message(m, {});
    CHECK(shown.part(0) == m.part(0));
    const auto& inner = nested_in(shown);
    CHECK(inner.security()->subject == nullptr);
    CHECK(inner.security()->labels.empty());
    CHECK(inner.text_content() == "inner");

    const auto all = filter_message(m, cmf::CapabilitySet::all());
    CHECK(all.content_ptr() == m.content_ptr());
}

TEST_CASE("the agent's conversation history is filtered like the message itself") {
    Json ext = {{"agent",
                 {{"session_id", "s1"},
                  {"conversation", {{"history", {cmf::message_to_json(nested_message())}}}}}}};
    const cmf::Message m(cmf::Role::user, {}, std::nullopt,
                         std::make_shared<const cmf::Extensions>(cmf::extensions_from_json(ext)));
    CHECK(filter_message(m, {}).agent() == nullptr);
    const auto agent_only = filter_message(m, {cmf::Capability::read_agent});
    const auto& history = *agent_only.agent()->conversation->history;
    CHECK(history[0].security()->subject == nullptr);
    const auto with_subject =
        filter_message(m, {cmf::Capability::read_agent, cmf::Capability::read_subject});
    const auto& subject = *(*with_subject.agent()->conversation->history)[0].security()->subject;
    CHECK(subject.id == "alice");
    CHECK(subject.roles.empty());
}

TEST_CASE("a part the processor left alone keeps its unfiltered nested messages in the result") {
    const auto current = with_prompt_result();
    const auto given = filter_message(current, {});
    const auto returned = given.with_part(0, cmf::ContentPart::text("redacted"));
    const auto out = pl::apply_returned(current, given, returned, {});
    REQUIRE(out.violations.empty());
    CHECK(out.changed);
    CHECK(out.message.text_content() == "redacted");
    CHECK(out.message.part(1) == current.part(1));
    CHECK(nested_in(out.message).security()->subject->id == "alice");
}
