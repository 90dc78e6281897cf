// The processors' incremental interface (Processor::final_length) as a pipeline answers it: the
// pii_redactor's exact cut positions, the processors that never change text, and how several
// combine (the least; nullopt as soon as one cannot tell).
#include <catch2/catch.hpp>

#include "fixture.hpp"

using namespace pipeline_test;

namespace {

const cmfpipe::Registry& bundled() {
    return cmfpipe::testing::bundled_plugins();
}

std::string one(const std::string& kind, const std::string& extra = "") {
    return "  - {name: " + kind + ", kind: " + kind + ", hooks: [llm_output]" + extra + "}\n";
}

const std::string redactor =
    "processors:\n" + one("pii_redactor", ", capabilities: [append_labels]");

// The redactor's final length of `text`, through a pipeline.
std::optional<std::size_t> final_of(const std::string& text, const std::string& yaml = redactor) {
    return pipeline(yaml, bundled()).final_length("llm_output", text);
}

// The text before the final length: what may go out at once.
std::string final_part(const std::string& text, const std::string& yaml = redactor) {
    const auto final = final_of(text, yaml);
    REQUIRE(final);
    REQUIRE(*final <= text.size());
    return text.substr(0, *final);
}

}  // namespace

TEST_CASE("final length: an address being written is held from its first character") {
    CHECK(final_part("write to ada@exa") == "write to ");
    CHECK(final_part("write to ada") == "write to ");  // "ada" may yet be an address's local part
    CHECK(final_part("write to ada@example.com") == "write to ");  // ".uk" may follow
    CHECK(final_part("write to ada@example.com.") == "write to ");
    CHECK(final_part("write to ada@example.com, then") == "write to ada@example.com, ");
    CHECK(final_part("mail [REDACTED:EMAIL]") == "mail ");  // the address may still grow
    CHECK(final_part("mail [REDACTED:EMAIL]!") == "mail [REDACTED:EMAIL]!");
    CHECK(final_part("<a_b%c@ex-am") == "<");
}

TEST_CASE("final length: prose goes out but its last word") {
    CHECK(final_part("Hello world") == "Hello ");
    CHECK(final_part("Hello world ") == "Hello world ");
    CHECK(final_part("Hello world.\n") == "Hello world.\n");
    CHECK(final_part("one,two") == "one,");
    CHECK(final_part("It is 2024 now") == "It is 2024 ");  // a space before a letter ends numbers
    CHECK(final_part("word") == "");                       // may continue text before it
    CHECK(final_part("") == "");
    CHECK(final_part("caf\xc3\xa9 au lait") == "caf\xc3\xa9 au ");
}

TEST_CASE("final length: a phone or card number is held whole, across its spaces") {
    CHECK(final_part("call 555-123-45") == "call ");
    CHECK(final_part("call (555) 123-4567") == "call ");  // "-8" would end it as no phone
    CHECK(final_part("call +1 (555) 12") == "call ");
    CHECK(final_part("card 4111 1111 1111 ") == "card ");  // a next group may come
    CHECK(final_part("card 4111 1111 1111 1111 ok") == "card 4111 1111 1111 1111 ");
    CHECK(final_part("ring [REDACTED:PHONE]") == "ring ");
    // A number token may grow over a space: "+44 20 7946 0958 1" is a longer phone.
    CHECK(final_part("ring [REDACTED:PHONE] 1") == "ring ");
    CHECK(final_part("ring [REDACTED:PHONE] now") == "ring [REDACTED:PHONE] ");
    CHECK(final_part("pay [REDACTED:CARD] ") == "pay ");
}

TEST_CASE("final length: only the kinds configured hold text") {
    const std::string emails_only =
        "processors:\n" +
        one("pii_redactor", ", config: {kinds: [email]}, capabilities: [append_labels]");
    CHECK(final_part("card 4111 1111", emails_only) == "card 4111 ");
    const std::string phones_only =
        "processors:\n" +
        one("pii_redactor", ", config: {kinds: [phone]}, capabilities: [append_labels]");
    CHECK(final_part("write to ada@exa", phones_only) == "write to ada@exa");
    CHECK(final_part("call 555 123", phones_only) == "call ");
    CHECK(final_part("call 555 123x", phones_only) == "call 555 123x");  // glued: no phone
}

TEST_CASE("final length: the scan back is bounded") {
    // A word longer than the scan: nothing is said final (the holdback decides), and the cost of
    // asking stays what max_final_scan bytes cost, however long the text.
    const std::string long_word(2000, 'a');
    CHECK(final_part("x " + long_word) == "");
    const std::string long_text = std::string(1 << 20, 'x') + " the end!\n";
    CHECK(final_part(long_text) == long_text);
}

TEST_CASE("final length: processors that never change text, and how answers combine") {
    // tool_guard and data_policy judge calls and policies, never text: all of it is final.
    const std::string policies = "processors:\n" + one("tool_guard", ", config: {rules: []}") +
                                 one("data_policy", ", capabilities: [read_data, append_labels]");
    CHECK(final_of("write to ada@exa", policies) == 16u);
    // With the redactor too, the least of their answers.
    CHECK(final_of("write to ada@exa",
                   policies + one("pii_redactor", ", capabilities: [append_labels]")) == 9u);
    // No processor at the hook: all final.
    CHECK(final_of("write to ada@exa", "processors: []\n") == 16u);
    const std::string input_only =
        "processors:\n  - {name: p, kind: pii_redactor, hooks: [llm_input], "
        "capabilities: [append_labels]}\n";
    CHECK(final_of("write to ada@exa", input_only) == 16u);
    // In audit mode its changes are discarded: it holds nothing.
    CHECK(final_of("write to ada@exa",
                   "processors:\n" +
                       one("pii_redactor", ", mode: audit, capabilities: [append_labels]")) == 16u);
}

TEST_CASE("final length: a processor without the interface, or one that throws, cannot tell") {
    auto reg = registry({adversarial_dir}, true);
    const auto final = [&](const std::string& yaml) {
        return pipeline(yaml, reg).final_length("llm_output", "write to ada@exa");
    };
    CHECK(final(redactor) == 9u);
    CHECK(final(redactor + one("deny")) == std::nullopt);  // deny has no final_length
    CHECK(final(redactor + one("throw", ", on_error: ignore")) == std::nullopt);
    CHECK_THROWS_AS(pipeline(redactor, reg).final_length("llm_other", "x"), cmfpipe::ValueError);
}
