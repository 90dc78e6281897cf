// The bundled processors, exactly: pii_redactor, data_policy, tool_guard.
#include <catch2/catch.hpp>

#include "fixture.hpp"

using namespace pipeline_test;

namespace {

const cmfpipe::Registry& bundled() {
    return cmfpipe::testing::bundled_plugins();
}

pl::PipelineResult run(const std::string& yaml, const Json& document,
                       const std::string& hook = "llm_input") {
    return pipeline(yaml, bundled()).run(hook, pl::messages_from_document(document, "test"));
}

const std::string redactor =
    "processors:\n  - {name: pii, kind: pii_redactor, hooks: [llm_input], "
    "capabilities: [append_labels]}\n";

// The text after the pii_redactor pipeline ran on one user message.
std::string redacted(const std::string& text) {
    auto result =
        run(redactor,
            {{"messages",
              {{{"role", "user"}, {"content", {{{"content_type", "text"}, {"text", text}}}}}}}});
    REQUIRE(result.messages.size() == 1);
    return result.messages[0].text_content();
}

Json tool_call(const std::string& name, const std::string& ns, Json arguments = Json::object()) {
    return {
        {"content_type", "tool_call"},
        {"content",
         {{"tool_call_id", "tc1"}, {"name", name}, {"arguments", arguments}, {"namespace", ns}}}};
}

}  // namespace

TEST_CASE("pii_redactor: card numbers only when the Luhn check passes") {
    CHECK(redacted("card 4111 1111 1111 1111 ok") == "card [REDACTED:CARD] ok");
    CHECK(redacted("card 4111 1111 1111 1112 no") == "card 4111 1111 1111 1112 no");  // Luhn fails
    CHECK(redacted("4111-1111-1111-1111") == "[REDACTED:CARD]");
    CHECK(redacted("amex 378282246310005.") == "amex [REDACTED:CARD].");  // 15 digits
    CHECK(redacted("4111111111111111") == "[REDACTED:CARD]");
    CHECK(redacted("79927398713") == "79927398713");  // Luhn-valid but 11 digits: too short
    CHECK(redacted("41111111111111119") == "41111111111111119");          // 17 digits, Luhn fails
    CHECK(redacted("x4111111111111111") == "x4111111111111111");          // glued to a word
    CHECK(redacted("4111 1111 1111 1111 2") == "4111 1111 1111 1111 2");  // 17 digits as one number
}

TEST_CASE("pii_redactor: e-mail addresses and what is not one") {
    CHECK(redacted("mail joe.doe+tag@mail.example.com.") == "mail [REDACTED:EMAIL].");
    CHECK(redacted("<a_b%c@ex-ample.org>") == "<[REDACTED:EMAIL]>");
    CHECK(redacted(".joe@ex.com") == ".[REDACTED:EMAIL]");
    CHECK(redacted("a@b@c.com") == "a@[REDACTED:EMAIL]");
    CHECK(redacted("a@b") == "a@b");      // no dot in the domain
    CHECK(redacted("x@y.c") == "x@y.c");  // one-letter top-level domain
    CHECK(redacted("foo..bar@ex.com") == "foo..bar@ex.com");
    CHECK(redacted("user@-bad.com") == "user@-bad.com");
    CHECK(redacted("user@ex.123") == "user@ex.123");  // numeric top-level domain
    CHECK(redacted("@ex.com") == "@ex.com");
}

TEST_CASE("pii_redactor: a number is found wherever it stands in prose") {
    // Text without a digit skips the phone and card scanners (tested eight bytes at a time):
    // a number at any offset, beside bytes of every kind, is still found.
    for (const std::string& before :
         {std::string("plain prose "), std::string("\xc3\xa9t\xc3\xa9 "),
          std::string("x/:;~\x7f ")}) {
        for (std::size_t pad = 0; pad <= 9; ++pad) {
            const std::string lead = before + std::string(pad, 'a') + " ";
            INFO(lead);
            CHECK(redacted(lead + "555-123-4567 end") == lead + "[REDACTED:PHONE] end");
            CHECK(redacted(lead + "4111 1111 1111 1111") == lead + "[REDACTED:CARD]");
        }
    }
    CHECK(redacted("no digits here at all, only words / and : signs") ==
          "no digits here at all, only words / and : signs");
}

TEST_CASE("pii_redactor: phone numbers and look-alikes") {
    CHECK(redacted("call 555-123-4567 now") == "call [REDACTED:PHONE] now");
    CHECK(redacted("(555) 123-4567") == "[REDACTED:PHONE]");
    CHECK(redacted("(555)123-4567") == "[REDACTED:PHONE]");
    CHECK(redacted("555.123.4567") == "[REDACTED:PHONE]");
    CHECK(redacted("+44 20 7946 0958") == "[REDACTED:PHONE]");
    CHECK(redacted("+1 (555) 123-4567") == "[REDACTED:PHONE]");
    CHECK(redacted("1-800-555-0199") == "[REDACTED:PHONE]");
    CHECK(redacted("5551234567 and 15551234567") == "[REDACTED:PHONE] and [REDACTED:PHONE]");
    CHECK(redacted("555-123-4567 555-987-6543") == "[REDACTED:PHONE] [REDACTED:PHONE]");
    CHECK(redacted("on 2024-01-15 at 192.168.1.1") == "on 2024-01-15 at 192.168.1.1");
    CHECK(redacted("555-1234") == "555-1234");        // 7 digits: too short
    CHECK(redacted("+1234567") == "+1234567");        // international needs 8+
    CHECK(redacted("25551234567") == "25551234567");  // 11 digits not starting with 1
    CHECK(redacted("555-123-45678") == "555-123-45678");
    CHECK(redacted("v1.555.123.4567") == "v1.555.123.4567");  // inside a dotted token
}

TEST_CASE("pii_redactor: tool arguments are redacted value by value, and the PII label appended") {
    const Json arguments = {{"to", "boss@corp.com"},
                            {"body", {{"lines", {"call 555-123-4567", "ok"}}}},
                            {"card", 4111111111111111},
                            {"boss@corp.com", "key stays"}};
    const Json content = Json::array({{{"content_type", "text"}, {"text", "no pii here"}},
                                      tool_call("send_email", "mail", arguments)});
    Json message = {{"role", "assistant"}, {"content", content}};
    Json document = {{"messages", Json::array({message})},
                     {"extensions", {{"security", {{"labels", {"INTERNAL"}}}}}}};
    auto result = run(redactor, document);
    REQUIRE(result.decisions.size() == 1);
    CHECK(result.decisions[0].outcome == pl::Outcome::modified);
    const auto& m = result.messages[0];
    CHECK(m.part(0)->get<cmf::Text>().text == "no pii here");
    CHECK(m.part(1)->get<cmf::ToolCall>().arguments ==
          Json({{"to", "[REDACTED:EMAIL]"},
                {"body", {{"lines", {"call [REDACTED:PHONE]", "ok"}}}},
                {"card", 4111111111111111},
                {"boss@corp.com", "key stays"}}));
    CHECK(m.security()->labels == cmf::StringSet{"INTERNAL", "PII"});
}

TEST_CASE("pii_redactor: thinking parts and tool results are redacted too, value by value") {
    const Json assistant = {
        {"role", "assistant"},
        {"content",
         Json::array({{{"content_type", "thinking"},
                       {"text", "the user is ada@example.com, card 4111 1111 1111 1111"}},
                      {{"content_type", "text"}, {"text", "Looking it up."}}})}};
    const Json tool = {{"role", "tool"},
                       {"content", Json::array({{{"content_type", "tool_result"},
                                                 {"content",
                                                  {{"tool_call_id", "tc1"},
                                                   {"tool_name", "lookup"},
                                                   {"content",
                                                    {{"phone", "call 555-123-4567"},
                                                     {"rows", {"bob@corp.com", 4111111111111111}},
                                                     {"ada@example.com", "key stays"}}},
                                                   {"is_error", false}}}},
                                                {{"content_type", "tool_result"},
                                                 {"content",
                                                  {{"tool_call_id", "tc2"},
                                                   {"tool_name", "echo"},
                                                   {"content", "mail joe.doe@mail.example.com."},
                                                   {"is_error", false}}}}})}};
    auto result = run(redactor, {{"messages", Json::array({assistant, tool})}});
    REQUIRE(result.decisions.size() == 2);
    CHECK(result.decisions[0].message == 0);
    CHECK(result.decisions[1].message == 1);
    const auto& thought = result.messages[0];
    CHECK(thought.part(0)->get<cmf::Thinking>().text ==
          "the user is [REDACTED:EMAIL], card [REDACTED:CARD]");
    CHECK(thought.part(1)->get<cmf::Text>().text == "Looking it up.");
    CHECK(thought.security()->labels == cmf::StringSet{"PII"});
    const auto& results = result.messages[1];
    CHECK(results.part(0)->get<cmf::ToolResult>() ==
          cmf::ToolResult{"tc1", "lookup",
                          Json({{"phone", "call [REDACTED:PHONE]"},
                                {"rows", {"[REDACTED:EMAIL]", 4111111111111111}},
                                {"ada@example.com", "key stays"}}),
                          false});
    CHECK(results.part(1)->get<cmf::ToolResult>() ==
          cmf::ToolResult{"tc2", "echo", Json("mail [REDACTED:EMAIL]."), false});
    CHECK(results.security()->labels == cmf::StringSet{"PII"});
}

TEST_CASE("pii_redactor: nothing found leaves the message and its pointers alone") {
    Json document = {
        {"messages",
         {{{"role", "user"}, {"content", {{{"content_type", "text"}, {"text", "hello"}}}}}}}};
    auto in = pl::messages_from_document(document, "t");
    auto result = pipeline(redactor, bundled()).run("llm_input", in);
    CHECK(result.decisions.empty());
    CHECK(result.messages[0].content_ptr() == in[0].content_ptr());
}

TEST_CASE(
    "pii_redactor: without append_labels its copy is a violation, and with a config it obeys it") {
    Json document = {
        {"messages",
         {{{"role", "user"},
           {"content", {{{"content_type", "text"}, {"text", "joe@ex.com 555-123-4567"}}}}}}}};
    auto denied =
        run("processors:\n  - {name: pii, kind: pii_redactor, hooks: [llm_input]}\n", document);
    CHECK(denied.stopped);
    REQUIRE(denied.decisions.size() == 1);
    CHECK(pl::to_json(denied.decisions[0])["violations"] ==
          Json::array({{{"slot", "security.labels"},
                        {"tier", "monotonic"},
                        {"detail", "plugin lacks 'append_labels' capability (added: PII)"}}}));
    CHECK(denied.messages[0].text_content() == "joe@ex.com 555-123-4567");

    auto emails_only =
        run("processors:\n  - {name: pii, kind: pii_redactor, hooks: [llm_input], "
            "capabilities: [append_labels], config: {kinds: [email], label: SENSITIVE}}\n",
            document);
    CHECK(emails_only.messages[0].text_content() == "[REDACTED:EMAIL] 555-123-4567");
    CHECK(emails_only.messages[0].security()->labels == cmf::StringSet{"SENSITIVE"});
}

TEST_CASE("data_policy: post views stamp apply_labels, denied and unlisted actions are denied") {
    const std::string config =
        "processors:\n  - {name: dp, kind: data_policy, hooks: [llm_input], "
        "capabilities: [read_data, append_labels]}\n";
    const Json data = {{"get_compensation",
                        {{"apply_labels", {"PII", "financial"}}, {"denied_actions", {"export"}}}},
                       {"delete_user", {{"denied_actions", {"execute"}}}},
                       {"read_file", {{"allowed_actions", {"read"}}}}};
    auto document = [&](Json content, const std::string& role) {
        return Json{{"messages", {{{"role", role}, {"content", content}}}},
                    {"extensions", {{"security", {{"labels", {"INTERNAL"}}, {"data", data}}}}}};
    };
    const Json result_part = {
        {"content_type", "tool_result"},
        {"content",
         {{"tool_call_id", "tc1"}, {"tool_name", "get_compensation"}, {"content", "42"}}}};

    auto stamped = run(config, document({result_part}, "tool"));
    REQUIRE(stamped.decisions.size() == 1);
    CHECK(stamped.messages[0].security()->labels == cmf::StringSet{"INTERNAL", "PII", "financial"});
    CHECK(stamped.messages[0].security()->data != nullptr);  // what it was not shown is kept

    auto again = pipeline(config, bundled())
                     .run("llm_input", stamped.messages);  // labels present: no change
    CHECK(again.decisions.empty());

    auto denied = run(config, document({tool_call("delete_user", "hr")}, "assistant"));
    CHECK(denied.stopped);
    REQUIRE(denied.decisions.size() == 1);
    CHECK(denied.decisions[0].denial->reason ==
          "action 'execute' on 'delete_user' is denied by its data policy");
    CHECK(denied.decisions[0].denial->code == "data_policy.denied_action");
    CHECK(denied.decisions[0].denial->details ==
          Json({{"name", "delete_user"}, {"action", "execute"}}));

    auto not_allowed = run(config, document({tool_call("read_file", "fs")}, "assistant"));
    REQUIRE(not_allowed.decisions.size() == 1);
    CHECK(not_allowed.decisions[0].denial->reason ==
          "action 'execute' on 'read_file' is not among the actions its data policy allows");
    CHECK(not_allowed.decisions[0].denial->code == "data_policy.action_not_allowed");

    // A pre view of a policy's entity gets no labels (only output is labelled).
    auto pre = run(config, document({tool_call("get_compensation", "hr")}, "assistant"));
    CHECK(pre.decisions.empty());

    // Without read_data the policies are absent from what it receives: it does nothing.
    auto blind =
        run("processors:\n  - {name: dp, kind: data_policy, hooks: [llm_input], capabilities: "
            "[append_labels]}\n",
            document({tool_call("delete_user", "hr")}, "assistant"));
    CHECK(blind.decisions.empty());
}

TEST_CASE("tool_guard: a matching tool call needs one of the rule's roles") {
    const std::string config = R"(processors:
  - name: guard
    kind: tool_guard
    hooks: [llm_output]
    capabilities: [read_roles]
    config:
      rules:
        - {uri: "tool://db-server/**", roles: [dba, admin]}
        - {uri: "tool://*/delete_*", roles: [admin]}
        - {uri: "tool://my.ns/tool", roles: []}
)";
    auto call = [&](const std::string& name, const std::string& ns, Json roles,
                    const std::string& yaml) {
        Json document = {
            {"messages", {{{"role", "assistant"}, {"content", {tool_call(name, ns)}}}}},
            {"extensions",
             {{"security", {{"subject", {{"id", "alice"}, {"type", "user"}, {"roles", roles}}}}}}}};
        return run(yaml, document, "llm_output");
    };
    auto denial = [](const pl::PipelineResult& r) {
        REQUIRE(r.decisions.size() == 1);
        return pl::to_json(r.decisions[0]);
    };
    auto d = denial(call("execute_sql", "db-server", {"dev"}, config));
    CHECK(d["effect"] == "stopped");
    CHECK(d["reason"] ==
          "tool call tool://db-server/execute_sql requires one of the roles: dba, admin");
    CHECK(d["code"] == "tool_guard.denied");
    CHECK(d["details"] == Json({{"uri", "tool://db-server/execute_sql"},
                                {"pattern", "tool://db-server/**"},
                                {"roles", {"dba", "admin"}}}));
    CHECK(call("execute_sql", "db-server", {"dba"}, config).decisions.empty());
    CHECK(call("list_users", "hr", {"dev"}, config).decisions.empty());  // no rule matches

    // Every matching rule must hold: a dba may use the db server, but deleting needs admin.
    CHECK(denial(call("delete_rows", "db-server", {"dba"}, config))["details"]["pattern"] ==
          "tool://*/delete_*");
    CHECK(call("delete_rows", "db-server", {"admin"}, config).decisions.empty());

    // Globs are literal apart from * and **: '.' is a dot.
    CHECK(denial(call("tool", "my.ns", {"admin"}, config))["reason"] ==
          "tool call tool://my.ns/tool is not allowed");
    CHECK(call("tool", "myXns", {"admin"}, config).decisions.empty());

    // Without read_roles it cannot see the roles, so it fails closed.
    std::string blind = config;
    blind.replace(blind.find("[read_roles]"), 12, "[]");
    CHECK(denial(call("execute_sql", "db-server", {"admin"}, blind))["code"] ==
          "tool_guard.denied");
}

TEST_CASE("bundled processors refuse bad configs with what and where") {
    auto refusal = [](const std::string& yaml) {
        try {
            pipeline(yaml, bundled());
        } catch (const cmfpipe::ConfigError& e) {
            return std::string(e.what());
        }
        return std::string("(accepted)");
    };
    CHECK(refusal("processors:\n  - {name: g, kind: tool_guard, hooks: [llm_output], config: "
                  "{rules: [{roles: [a]}]}}\n") ==
          "test.yaml:2:5: processor 'g' (kind tool_guard) refused its configuration: tool_guard: "
          "rules[0] needs a 'uri'");
    CHECK(refusal("processors:\n  - {name: d, kind: data_policy, hooks: [llm_output], config: {x: "
                  "1}}\n") ==
          "test.yaml:2:5: processor 'd' (kind data_policy) refused its configuration: data_policy: "
          "takes no config "
          "(got {\"x\":1})");
    CHECK(refusal("processors:\n  - {name: p, kind: pii_redactor, hooks: [llm_input], config: "
                  "{sealed: redact}}\n") ==
          "test.yaml:2:5: processor 'p' (kind pii_redactor) refused its configuration: "
          "pii_redactor: sealed must be keep or deny, got \"redact\"");
}

TEST_CASE(
    "pii_redactor: signed thinking is left as the provider wrote it and the message labelled") {
    const Json sealed = {{"content_type", "thinking"},
                         {"text", "the user is ada@example.com"},
                         {"signature", "EqQBCkYIBxgCKkB=="}};
    const Json redacted_block = {
        {"content_type", "thinking"}, {"text", ""}, {"signature", "EmwKAhgB"}, {"redacted", true}};
    const Json assistant = {
        {"role", "assistant"},
        {"content", Json::array({sealed,
                                 redacted_block,
                                 {{"content_type", "text"}, {"text", "Mail ada@example.com."}}})}};
    const Json clean_sealed = {
        {"role", "assistant"},
        {"content",
         Json::array(
             {{{"content_type", "thinking"}, {"text", "nothing personal"}, {"signature", "S2"}}})}};
    const auto in =
        pl::messages_from_document({{"messages", Json::array({assistant, clean_sealed})}}, "t");

    SECTION("sealed: keep (default): the rest is redacted, labels PII and PII_SEALED") {
        auto result = pipeline(redactor, bundled()).run("llm_input", in);
        CHECK_FALSE(result.stopped);
        REQUIRE(result.decisions.size() == 1);  // the clean sealed message: nothing to do
        CHECK(pl::to_json(result.decisions[0]) == Json{{"processor", "pii"},
                                                       {"kind", "pii_redactor"},
                                                       {"hook", "llm_input"},
                                                       {"message", 0},
                                                       {"mode", "enforce"},
                                                       {"outcome", "modified"},
                                                       {"effect", "applied"}});
        const auto& m = result.messages[0];
        CHECK(m.part(0) == in[0].part(0));  // the very part, signature and text
        CHECK(m.part(1) == in[0].part(1));
        CHECK(m.part(2)->get<cmf::Text>().text == "Mail [REDACTED:EMAIL].");
        CHECK(m.security()->labels == cmf::StringSet{"PII", "PII_SEALED"});
        CHECK(result.messages[1].content_ptr() == in[1].content_ptr());
    }
    SECTION("only sealed PII: nothing redacted, the labels still tell") {
        const auto only = pl::messages_from_document(
            {{"messages",
              Json::array({{{"role", "assistant"}, {"content", Json::array({sealed})}}})}},
            "t");
        auto result =
            run("processors:\n  - {name: pii, kind: pii_redactor, hooks: [llm_output], "
                "capabilities: [append_labels], config: {sealed_label: RAW_PII}}\n",
                {{"messages",
                  Json::array({{{"role", "assistant"}, {"content", Json::array({sealed})}}})}},
                "llm_output");
        REQUIRE(result.decisions.size() == 1);
        CHECK(result.decisions[0].outcome == pl::Outcome::modified);
        CHECK(*result.messages[0].part(0) == *only[0].part(0));
        CHECK(result.messages[0].security()->labels == cmf::StringSet{"PII", "RAW_PII"});
    }
    SECTION("sealed: deny: the message is denied, naming the parts and kinds") {
        auto result = pipeline(
                          "processors:\n  - {name: pii, kind: pii_redactor, hooks: [llm_input], "
                          "capabilities: [append_labels], config: {sealed: deny}}\n",
                          bundled())
                          .run("llm_input", in);
        CHECK(result.stopped);
        REQUIRE(result.decisions.size() == 1);
        CHECK(pl::to_json(result.decisions[0]) ==
              Json{{"processor", "pii"},
                   {"kind", "pii_redactor"},
                   {"hook", "llm_input"},
                   {"message", 0},
                   {"mode", "enforce"},
                   {"outcome", "denied"},
                   {"effect", "stopped"},
                   {"reason",
                    "provider-signed thinking holds personal data (email) that cannot be redacted "
                    "without breaking its signature"},
                   {"code", "sealed_pii"},
                   {"details", {{"parts", {0}}, {"kinds", {"email"}}}}});
        CHECK(result.messages[0] == in[0]);
    }
}
