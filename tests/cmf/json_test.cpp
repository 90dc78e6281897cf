// CMF JSON: the round trip of every part kind and every extension slot, and the exact error
// (with its JSON path) for each kind of malformed input.
#include <catch2/catch.hpp>

#include "cmfpipe/cmf.hpp"
#include "support/thrown.hpp"

using namespace cmfpipe;
using namespace cmfpipe::cmf;

namespace {

Json parse(const char* text) {
    return Json::parse(text);
}

std::string error_of(const Json& json, std::string_view path = "messages") {
    return cmfpipe::testing::thrown_message<ValueError>([&] { messages_from_json(json, path); },
                                                        "<no error>");
}

}  // namespace

TEST_CASE("every part kind round-trips through JSON unchanged", "[cmf][json]") {
    const Json wire = parse(R"([{
      "schema_version": "2.0", "role": "assistant",
      "content": [
        {"content_type": "text", "text": "hi"},
        {"content_type": "thinking", "text": "hmm"},
        {"content_type": "tool_call", "content": {"tool_call_id": "t1", "name": "x",
          "arguments": {"b": 1, "a": [true, null, 2.5]}, "namespace": "ns"}},
        {"content_type": "tool_result", "content": {"tool_call_id": "t1", "tool_name": "x",
          "content": {"result": 42}, "is_error": true}},
        {"content_type": "resource", "content": {"resource_request_id": "r1", "uri": "file:///a",
          "name": "a", "description": "d", "resource_type": "file", "content": "data", "blob": null,
          "mime_type": "text/plain", "size_bytes": 4, "annotations": {"k": "v"}, "version": "3"}},
        {"content_type": "resource_ref", "content": {"resource_request_id": "r2", "uri": "db://b",
          "name": null, "resource_type": "database", "range_start": 1, "range_end": 9,
          "selector": "$.x"}},
        {"content_type": "prompt_request", "content": {"prompt_request_id": "p1", "name": "s",
          "arguments": {"text": "hi"}, "server_id": "srv"}},
        {"content_type": "prompt_result", "content": {"prompt_request_id": "p1", "prompt_name": "s",
          "messages": [{"schema_version": "2.0", "role": "user",
                        "content": [{"content_type": "text", "text": "inner"}], "channel": null}],
          "content": "summary", "is_error": false, "error_message": null}},
        {"content_type": "image", "content": {"type": "base64", "data": "aGk=", "media_type": "image/png"}},
        {"content_type": "video", "content": {"type": "url", "data": "http://v", "media_type": "video/mp4",
          "duration_ms": 1000}},
        {"content_type": "audio", "content": {"type": "url", "data": "http://a", "media_type": null,
          "duration_ms": null}},
        {"content_type": "document", "content": {"type": "url", "data": "http://d",
          "media_type": "application/pdf", "title": "Doc"}}
      ],
      "channel": "final"
    }])");
    const auto messages = messages_from_json(wire);
    REQUIRE(messages.size() == 1);
    const Message& m = messages[0];
    REQUIRE(m.size() == 12);
    for (int i = 0; i < content_type_count; ++i)
        CHECK(m.part(i)->type() == static_cast<ContentType>(i));
    CHECK(m.channel() == Channel::final);
    CHECK(m.part(2)->get<ToolCall>().namespace_ == "ns");
    CHECK(m.part(4)->get<Resource>().size_bytes == 4);
    CHECK(m.part(5)->get<ResourceReference>().range_end == 9);
    CHECK(m.part(7)->get<PromptResult>().messages.at(0).text_content() == "inner");
    CHECK(m.part(8)->get<ImageSource>().type == MediaSourceType::base64);
    CHECK(messages_to_json(messages) == wire);  // exact, key order included
    CHECK(messages_from_json(messages_to_json(messages)) == messages);
}

// A message with every extension slot filled.
Json every_slot() {
    return parse(R"({
      "schema_version": "2.0", "role": "user", "content": [], "channel": null,
      "extensions": {
        "request": {"environment": "prod", "request_id": "r", "timestamp": "t", "trace_id": "tr", "span_id": "sp"},
        "agent": {"input": "i", "session_id": "s", "conversation_id": "c", "turn": 2, "agent_id": "a",
          "parent_agent_id": "p", "conversation": {"history": [], "summary": "sum", "topics": ["x"]}},
        "http": {"headers": {"X-B": "2", "Authorization": "Bearer t"}},
        "security": {"labels": ["A", "B"], "classification": "c",
          "subject": {"id": "u", "type": "service", "roles": ["r"], "permissions": ["p"], "teams": ["t"],
                      "claims": {"sub": "u"}},
          "objects": {"tool": {"managed_by": "tool", "permissions": ["x"], "trust_domain": null, "data_scope": []}},
          "data": {"tool": {"apply_labels": ["PII"], "allowed_actions": ["read"], "denied_actions": [],
                            "retention": {"max_age_seconds": 5, "policy": "session", "delete_after": null}}}},
        "delegation": {"on_behalf_of": "alice"},
        "mcp": {"tool": {"name": "t", "title": null, "description": null, "input_schema": {"type": "object"},
                         "output_schema": null, "server_id": "s", "namespace": "n", "annotations": {}},
                "resource": null,
                "prompt": {"name": "p", "description": null, "arguments": [{"name": "a", "required": true}],
                           "server_id": null, "annotations": {}}},
        "completion": {"stop_reason": "return", "tokens": {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3},
                       "model": "m", "raw_format": "chatml", "created_at": null, "latency_ms": 7},
        "provenance": {"source": "user", "message_id": "m1", "parent_id": null},
        "llm": {"model_id": "gpt", "provider": "openai", "capabilities": ["vision"]},
        "framework": {"framework": "langgraph", "framework_version": "1", "node_id": null, "graph_id": "g",
                      "metadata": {"k": 1}},
        "meta": {"tags": ["hr", "pii"], "scope": "s", "properties": {"owner": "hr"}},
        "custom": {"anything": [1, 2]}
      }
    })");
}

TEST_CASE("every extension slot round-trips through JSON", "[cmf][json]") {
    const Json wire = every_slot();
    const Message m = message_from_json(wire);
    CHECK(m.completion()->stop_reason == StopReason::return_);
    CHECK(m.security()->subject->type == SubjectType::service);
    CHECK(m.security()->objects->find("tool")->managed_by == "tool");
    CHECK(m.http()->headers.find("Authorization") != nullptr);
    CHECK(m.delegation()->value == Json{{"on_behalf_of", "alice"}});
    CHECK(message_to_json(m) == wire);
}

// nlohmann's ADL pair: Json(value).get<T>() gives the value back, for every T with a to_json.
template <class T>
Json round_trip(const T& value) {
    const Json json = value;
    return Json(json.get<T>());
}

TEST_CASE("every type with a to_json has its from_json partner", "[cmf][json]") {
    const Message m = message_from_json(every_slot());
    const Extensions& e = m.extensions();
    CHECK(round_trip(m) == Json(m));
    CHECK(round_trip(e) == Json(e));
    CHECK(round_trip(*e.request) == Json(*e.request));
    CHECK(round_trip(*e.agent) == Json(*e.agent));
    CHECK(round_trip(*e.agent->conversation) == Json(*e.agent->conversation));
    CHECK(round_trip(*e.http) == Json(*e.http));
    CHECK(round_trip(*e.security) == Json(*e.security));
    CHECK(round_trip(*e.security->subject) == Json(*e.security->subject));
    CHECK(round_trip(*e.security->objects->find("tool")) ==
          Json(*e.security->objects->find("tool")));
    CHECK(round_trip(*e.security->data->find("tool")) == Json(*e.security->data->find("tool")));
    CHECK(round_trip(*e.security->data->find("tool")->retention) ==
          Json{{"max_age_seconds", 5}, {"policy", "session"}, {"delete_after", nullptr}});
    CHECK(round_trip(*e.delegation) == Json{{"on_behalf_of", "alice"}});
    CHECK(round_trip(*e.mcp) == Json(*e.mcp));
    CHECK(round_trip(*e.completion) == Json(*e.completion));
    CHECK(round_trip(*e.completion->tokens) ==
          Json{{"input_tokens", 1}, {"output_tokens", 2}, {"total_tokens", 3}});
    CHECK(round_trip(*e.provenance) == Json(*e.provenance));
    CHECK(round_trip(*e.llm) == Json(*e.llm));
    CHECK(round_trip(*e.framework) == Json(*e.framework));
    CHECK(round_trip(*e.meta) == Json(*e.meta));
    const auto part = ContentPart::make(ToolCall{"t1", "search", {{"q", "x"}}});
    CHECK(round_trip(*part) ==
          parse(R"({"content_type": "tool_call", "content": {"tool_call_id": "t1", "name": "search",
                    "arguments": {"q": "x"}, "namespace": null}})"));
}

TEST_CASE("from_json is as strict as message_from_json and names the type", "[cmf][json]") {
    auto error_of_get = [](auto get) -> std::string {
        try {
            get();
        } catch (const ValueError& e) {
            return e.what();
        }
        return "(accepted)";
    };
    CHECK(error_of_get([] { parse(R"({"labels": "PII"})").get<SecurityExtension>(); }) ==
          "security.labels: expected an array of strings, got string");
    CHECK(error_of_get([] {
              parse(R"({"input_tokens": 1, "output_tokens": 2})").get<TokenUsage>();
          }) == "tokens.total_tokens: missing (required)");
    CHECK(error_of_get([] { parse(R"({"turn": 1, "mood": "ok"})").get<AgentExtension>(); }) ==
          "agent.mood: unknown field (expected one of: input, session_id, conversation_id, turn, "
          "agent_id, parent_agent_id, conversation)");
    CHECK(error_of_get([] { parse(R"({"content_type": "text"})").get<ContentPart>(); }) ==
          "part.text: missing (required)");
}

TEST_CASE("missing optional fields take their defaults, nulls are accepted", "[cmf][json]") {
    const Message m = message_from_json(parse(R"({"role": "tool", "content": [
        {"content_type": "tool_result", "content": {"tool_call_id": "t1", "tool_name": "x"}}]})"));
    const auto& result = m.part(0)->get<ToolResult>();
    CHECK(result.content.is_null());
    CHECK_FALSE(result.is_error);
    CHECK(
        message_to_json(m).dump() ==
        R"({"schema_version":"2.0","role":"tool","content":[{"content_type":"tool_result","content":)"
        R"({"tool_call_id":"t1","tool_name":"x","content":null,"is_error":false}}],"channel":null})");
}

TEST_CASE("malformed CMF is a ValueError naming the JSON path", "[cmf][json]") {
    auto with_part = [](const char* part, const char* role = "assistant") {
        return Json::array(
            {Json{{"role", "user"}, {"content", Json::array()}}, Json::object(),
             Json{{"role", role},
                  {"content", Json::array({Json{{"content_type", "text"}, {"text", "ok"}},
                                           Json::parse(part)})}}});
    };
    auto third = [&](const char* part, const char* role = "assistant") {
        Json list = with_part(part, role);
        list[1] = list[0];
        return list;
    };

    CHECK(error_of(third(R"({"content_type": "bogus", "text": "hello"})")) ==
          "messages[2].content[1].content_type: unknown content_type \"bogus\" (expected one of: "
          "text, "
          "thinking, tool_call, tool_result, resource, resource_ref, prompt_request, "
          "prompt_result, image, "
          "video, audio, document)");
    CHECK(error_of(third(R"({"text": "hello"})")) ==
          "messages[2].content[1]: missing 'content_type' discriminator");
    CHECK(error_of(third(
              R"({"content_type": "tool_call", "content": {"tool_call_id": "t", "name": 5}})")) ==
          "messages[2].content[1].content.name: expected a string, got integer");
    CHECK(error_of(
              third(R"({"content_type": "tool_call", "content": {"tool_call_id": "t", "name": "n",
                              "arguments": "x=1"}})")) ==
          "messages[2].content[1].content.arguments: expected an object, got string");
    CHECK(error_of(third(R"({"content_type": "tool_call", "content": {"tool_call_id": "t"}})")) ==
          "messages[2].content[1].content.name: missing (required)");
    CHECK(error_of(third(R"({"content_type": "tool_call", "name": "n", "arguments": {}})")) ==
          "messages[2].content[1].name: unknown field (expected one of: content_type, content)");
    CHECK(error_of(third(R"({"content_type": "text", "text": "a", "content": "b"})")) ==
          "messages[2].content[1].content: unknown field (expected one of: content_type, text)");
    CHECK(error_of(third(R"({"content_type": "resource", "content": {"resource_request_id": "r",
              "uri": "f:///a", "resource_type": "file", "content": "x", "blob": "eA=="}})",
                         "tool")) ==
          "messages[2].content[1].content.blob: a resource has either content or blob, not both");
    CHECK(error_of(third(R"({"content_type": "resource_ref", "content": {"resource_request_id": "r",
              "uri": "f:///a", "resource_type": "file", "range_start": 10, "range_end": 5}})")) ==
          "messages[2].content[1].content.range_end: range_end (5) is less than range_start (10)");
    CHECK(error_of(third(R"({"content_type": "resource_ref", "content": {"resource_request_id": "r",
              "uri": "f:///a", "resource_type": "file", "range_start": 1.5}})")) ==
          "messages[2].content[1].content.range_start: expected an integer or null, got number");
    CHECK(error_of(third(R"({"content_type": "resource_ref", "content": {"resource_request_id": "r",
              "uri": "f:///a", "resource_type": "folder"}})")) ==
          "messages[2].content[1].content.resource_type: unknown resource_type \"folder\" "
          "(expected one of: "
          "file, blob, uri, database, api, memory, artifact)");
    CHECK(error_of(third(R"({"content_type": "image", "content": {"type": "ftp", "data": "abc"}})",
                         "user")) ==
          "messages[2].content[1].content.type: unknown media source type \"ftp\" (expected one "
          "of: url, base64)");
    CHECK(error_of(third(R"({"content_type": "text", "text": "x"})", "moderator")) ==
          "messages[2].role: unknown role \"moderator\" (expected one of: system, developer, user, "
          "assistant, "
          "tool)");
    CHECK(error_of(third(R"({"content_type": "tool_result", "content": {"tool_call_id": "t",
              "tool_name": "x", "is_error": "no"}})")) ==
          "messages[2].content[1].content.is_error: expected a boolean, got string");
    CHECK(error_of(third(R"({"content_type": "prompt_result", "content": {"prompt_request_id": "p",
              "prompt_name": "s", "messages": [{"role": "user", "content": [{"content_type": "x"}]}]}})")) ==
          "messages[2].content[1].content.messages[0].content[0].content_type: unknown "
          "content_type \"x\" "
          "(expected one of: text, thinking, tool_call, tool_result, resource, resource_ref, "
          "prompt_request, "
          "prompt_result, image, video, audio, document)");
    CHECK(error_of(third(R"("just text")")) ==
          "messages[2].content[1]: expected a content part object, got string");

    CHECK(error_of(parse(R"([{"role": "assistant", "content": [], "channel": "debug"}])")) ==
          "messages[0].channel: unknown channel \"debug\" (expected one of: analysis, commentary, "
          "final)");
    CHECK(error_of(parse(R"([{"role": "user", "content": [], "schema_version": "1.0"}])")) ==
          "messages[0].schema_version: unsupported schema_version \"1.0\" (expected \"2.0\")");
    CHECK(error_of(parse(R"([{"role": "user", "content": "hi"}])")) ==
          "messages[0].content: expected an array of content parts, got string");
    CHECK(error_of(parse(R"([{"content": []}])")) == "messages[0].role: missing (required)");
    CHECK(error_of(parse(R"([{"role": "user", "content": [], "extensionz": {}}])")) ==
          "messages[0].extensionz: unknown field (expected one of: schema_version, role, content, "
          "channel, "
          "extensions)");
    CHECK(error_of(parse(R"({"role": "user"})")) ==
          "messages: expected an array of messages, got object");
    CHECK(
        error_of(parse(
            R"([{"role": "user", "content": [], "extensions": {"security": {"labels": "PII"}}}])")) ==
        "messages[0].extensions.security.labels: expected an array of strings, got string");
    CHECK(error_of(parse(R"([{"role": "user", "extensions": {"security": {"subject": {"id": "u",
              "type": "robot"}}}}])")) ==
          "messages[0].extensions.security.subject.type: unknown subject type \"robot\" (expected "
          "one of: user, "
          "agent, service, system)");
    CHECK(error_of(parse(R"([{"role": "user", "extensions": {"http": {"headers": {"X": 1}}}}])")) ==
          "messages[0].extensions.http.headers.X: expected a string, got integer");
    CHECK(error_of(parse(
              R"([{"role": "user", "extensions": {"completion": {"stop_reason": "done"}}}])")) ==
          "messages[0].extensions.completion.stop_reason: unknown stop_reason \"done\" (expected "
          "one of: end, "
          "return, call, max_tokens, stop_sequence)");
    CHECK(error_of(parse(R"([{"role": "user", "extensions": {"vault": {}}}])")) ==
          "messages[0].extensions.vault: unknown field (expected one of: request, agent, http, "
          "security, "
          "delegation, mcp, completion, provenance, llm, framework, meta, custom)");
}

TEST_CASE("programmatic parts keep the same invariants", "[cmf][json]") {
    Resource both{"r", "file:///a"};
    both.content = "x";
    both.blob = "eA==";
    CHECK_THROWS_WITH(ContentPart::make(both),
                      "resource file:///a has both content and blob (at most one)");
    ResourceReference range{"r", "file:///a"};
    range.range_start = 10;
    range.range_end = 5;
    CHECK_THROWS_WITH(ContentPart::make(range),
                      "resource_ref file:///a: range_end (5) is less than range_start (10)");
    CHECK_THROWS_WITH(ContentPart::make(ToolCall{"t", "n", Json::array(), std::nullopt}),
                      "tool_call arguments must be a JSON object, got array");
}

TEST_CASE("nlohmann ADL conversions", "[cmf][json]") {
    const Message m = Message::text(Role::system, "be brief");
    Json j = m;
    CHECK(
        j.dump() ==
        R"({"schema_version":"2.0","role":"system","content":[{"content_type":"text","text":"be brief"}],"channel":null})");
    CHECK(j.get<Message>() == m);
}

TEST_CASE("a thinking part's seal round-trips beside its text, only when it has one",
          "[cmf][json]") {
    const Json wire = parse(R"([{
      "schema_version": "2.0", "role": "assistant",
      "content": [
        {"content_type": "thinking", "text": "plain"},
        {"content_type": "thinking", "text": "signed", "signature": "EqQBCkYIBxgCKkB=="},
        {"content_type": "thinking", "text": "", "signature": "EmwKAhgB", "redacted": true}
      ],
      "channel": null
    }])");
    const auto messages = messages_from_json(wire);
    REQUIRE(messages[0].size() == 3);
    CHECK(messages[0].part(0)->get<Thinking>() == Thinking{"plain", "", false});
    CHECK_FALSE(messages[0].part(0)->get<Thinking>().sealed());
    CHECK(messages[0].part(1)->get<Thinking>() == Thinking{"signed", "EqQBCkYIBxgCKkB==", false});
    CHECK(messages[0].part(1)->get<Thinking>().sealed());
    CHECK(messages[0].part(2)->get<Thinking>() == Thinking{"", "EmwKAhgB", true});
    CHECK(messages_to_json(messages) == wire);  // exact: no signature member when there is none
    // The seal is part of the value: the same text with another signature is another part.
    CHECK_FALSE(*ContentPart::thinking("signed", "A") == *ContentPart::thinking("signed", "B"));
    CHECK_FALSE(*ContentPart::thinking("signed", "A") == *ContentPart::thinking("signed"));

    CHECK(error_of(Json::array({Json{{"role", "assistant"},
                                     {"content", Json::array({Json{{"content_type", "thinking"},
                                                                   {"text", ""},
                                                                   {"redacted", true}}})}}})) ==
          "messages[0].content[0].redacted: a redacted thinking part needs its 'signature'");
    CHECK(error_of(Json::array({Json{{"role", "assistant"},
                                     {"content", Json::array({Json{{"content_type", "thinking"},
                                                                   {"text", "t"},
                                                                   {"signature", 5}}})}}})) ==
          "messages[0].content[0].signature: expected a string or null, got integer");
    CHECK(error_of(Json::array({Json{
              {"role", "assistant"},
              {"content", Json::array({Json{
                              {"content_type", "text"}, {"text", "t"}, {"signature", "S"}}})}}})) ==
          "messages[0].content[0].signature: unknown field (expected one of: content_type, text)");
}
