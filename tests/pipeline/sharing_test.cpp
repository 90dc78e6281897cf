// What the pipeline hands a processor: the message itself when its capabilities hide nothing the
// message carries, else a copy around the filtered record; one filtered record for all messages
// that show the processor the same thing.
#include <catch2/catch.hpp>

#include "cmfpipe/cmf/filter.hpp"
#include "fixture.hpp"
#include "plugins/recording.hpp"

using namespace pipeline_test;

namespace {

const char* sees_all =
    "[read_roles, read_permissions, read_teams, read_claims, append_labels, write_headers, "
    "read_agent, read_objects, read_data, read_delegation, write_custom]";

cmfpipe::Registry recording_registry() {
    cmfpipe::Registry reg;
    reg.add_builtin(cmfpipe_builtin_recording());
    return reg;
}

// Runs `yaml` over `messages` with a fresh log; the buffer of `messages` is moved into the run, so
// `*data` is where the pipeline's own messages live.
pl::PipelineResult run(const std::string& yaml, std::vector<cmf::Message> messages,
                       const cmf::Message** data) {
    recorded().clear();
    const auto reg = recording_registry();
    const auto p = pipeline(yaml, reg);
    *data = messages.data();
    return p.run("llm_input", std::move(messages));
}

cmf::Message with_prompt_result(const cmf::Message& nested) {
    cmf::PromptResult result{"p1", "summarize", {nested}, std::nullopt, false, std::nullopt};
    return cmf::Message(cmf::Role::tool,
                        {cmf::ContentPart::text("outer"), cmf::ContentPart::make(result)});
}

}  // namespace

TEST_CASE(
    "a processor whose capabilities hide nothing the message carries gets the message "
    "itself") {
    // The conversation carries request, http, labels, a subject with roles only, custom.
    const auto original = conversation();
    const cmf::Message* data = nullptr;
    const auto result =
        run("processors:\n  - {name: r, kind: record, hooks: [llm_input], capabilities: "
            "[read_headers, read_labels, read_roles]}\n",
            original, &data);
    REQUIRE(result.messages.data() == data);
    REQUIRE(recorded().size() == 2);
    for (std::size_t i = 0; i < 2; ++i) {
        CHECK(recorded()[i].address == data + i);  // not a copy
        CHECK(recorded()[i].message.extensions_ptr() == original[i].extensions_ptr());
        CHECK(recorded()[i].message.content_ptr() == original[i].content_ptr());
    }
    CHECK(result.decisions.empty());
}

TEST_CASE("a processor whose capabilities hide a part gets a filtered copy") {
    const auto original = conversation();
    const auto& ext = original[0].extensions_ptr();
    REQUIRE(original[1].extensions_ptr() == ext);
    SECTION("labels and subject hidden") {
        const cmf::Message* data = nullptr;
        const auto result =
            run("processors:\n  - {name: r, kind: record, hooks: [llm_input], capabilities: "
                "[read_headers]}\n",
                original, &data);
        REQUIRE(recorded().size() == 2);
        for (std::size_t i = 0; i < 2; ++i) {
            const auto& seen = recorded()[i];
            CHECK(seen.address != data + i);
            CHECK(seen.message.extensions_ptr() != ext);
            CHECK(seen.message.content_ptr() == original[i].content_ptr());
            CHECK(seen.message.http() == ext->http);  // what is shown stays shared
            CHECK(seen.message.request() == ext->request);
            CHECK(seen.message.custom() == ext->custom);
            REQUIRE(seen.message.security());
            CHECK(seen.message.security()->labels.empty());
            CHECK(seen.message.security()->subject == nullptr);
            CHECK(result.messages[i].extensions_ptr() == ext);  // the message goes on as it was
        }
        // Both messages share the source record: one filtered record serves both.
        CHECK(recorded()[1].message.extensions_ptr() == recorded()[0].message.extensions_ptr());
    }
    SECTION("the roles hidden, a subject that has some") {
        const cmf::Message* data = nullptr;
        run("processors:\n  - {name: r, kind: record, hooks: [llm_input], capabilities: "
            "[read_headers, read_labels, read_claims]}\n",
            original, &data);
        REQUIRE(recorded().size() == 2);
        const auto& seen = recorded()[0];
        CHECK(seen.address != data);
        CHECK(seen.message.security()->labels == cmf::StringSet{"INTERNAL", "SECRET"});
        REQUIRE(seen.message.security()->subject);
        CHECK(seen.message.security()->subject->id == "alice");
        CHECK(seen.message.security()->subject->roles.empty());
    }
}

TEST_CASE("records that differ only in what a processor cannot see share one filtered record") {
    // label_first gives message 0 a record of its own (labels + FIRST); message 1 keeps the
    // original. A processor without read_labels sees the two alike; one with it does not.
    const auto original = conversation();
    const cmf::Message* data = nullptr;
    const auto result = run(
        "processors:\n"
        "  - {name: first, kind: label_first, hooks: [llm_input], capabilities: [append_labels]}\n"
        "  - {name: blind, kind: record, hooks: [llm_input]}\n"
        "  - {name: labels, kind: record, hooks: [llm_input], capabilities: [read_labels]}\n",
        original, &data);
    REQUIRE(result.decisions.size() == 1);
    CHECK(result.decisions[0].effect == pl::Effect::applied);
    REQUIRE(result.messages[0].extensions_ptr() != result.messages[1].extensions_ptr());
    CHECK(result.messages[1].extensions_ptr() == original[1].extensions_ptr());
    REQUIRE(recorded().size() == 4);
    const auto& blind0 = recorded()[0].message;
    const auto& blind1 = recorded()[1].message;
    CHECK(blind0.extensions_ptr() == blind1.extensions_ptr());
    CHECK(blind0.security()->labels.empty());
    CHECK(blind0.extensions() == *cmf::filter_extensions(result.messages[0].extensions_ptr(), {}));
    CHECK(blind1.extensions() == *cmf::filter_extensions(result.messages[1].extensions_ptr(), {}));

    const auto& labels0 = recorded()[2].message;
    const auto& labels1 = recorded()[3].message;
    CHECK(labels0.extensions_ptr() != labels1.extensions_ptr());
    CHECK(labels0.security()->labels == cmf::StringSet{"FIRST", "INTERNAL", "SECRET"});
    CHECK(labels1.security()->labels == cmf::StringSet{"INTERNAL", "SECRET"});
}

TEST_CASE("a change returned on the message itself is checked and applied like any other") {
    // Nothing is hidden from label_all, so it builds its copy on the pipeline's own message.
    const auto original = conversation();
    const cmf::Message* data = nullptr;
    const auto result = run(std::string("processors:\n"
                                        "  - {name: seen, kind: label_all, hooks: [llm_input], "
                                        "capabilities: ") +
                                sees_all +
                                "}\n"
                                "  - {name: r, kind: record, hooks: [llm_input], capabilities: " +
                                sees_all + "}\n",
                            original, &data);
    REQUIRE(result.decisions.size() == 2);
    REQUIRE(recorded().size() == 2);
    for (std::size_t i = 0; i < 2; ++i) {
        const auto& m = result.messages[i];
        CHECK(m.security()->labels == cmf::StringSet{"INTERNAL", "SECRET", "SEEN"});
        CHECK(m.security()->subject == original[i].security()->subject);
        CHECK(m.http() == original[i].http());
        CHECK(m.custom() == original[i].custom());
        CHECK(recorded()[i].address == data + i);
        CHECK(recorded()[i].message.extensions_ptr() == m.extensions_ptr());
    }
}

TEST_CASE(
    "a message nesting messages is filtered whole, or handed over itself when nothing is "
    "hidden") {
    const auto outer = with_prompt_result(conversation()[0]);
    const cmf::Message* data = nullptr;
    run("processors:\n  - {name: r, kind: record, hooks: [llm_input]}\n", {outer}, &data);
    REQUIRE(recorded().size() == 1);
    CHECK(recorded()[0].address != data);
    CHECK(recorded()[0].message.part(0) == outer.part(0));
    const auto& nested = recorded()[0].message.part(1)->get<cmf::PromptResult>().messages[0];
    CHECK(nested.http() == nullptr);
    CHECK(nested.security()->labels.empty());
    CHECK(nested.security()->subject == nullptr);

    run(std::string("processors:\n  - {name: r, kind: record, hooks: [llm_input], capabilities: ") +
            sees_all + "}\n",
        {outer}, &data);
    REQUIRE(recorded().size() == 1);
    CHECK(recorded()[0].address == data);
    CHECK(recorded()[0].message.content_ptr() == outer.content_ptr());
}
