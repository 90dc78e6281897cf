// MessageView: semantics per kind and role, flat accessors, header handling, glob, to_dict.
#include <catch2/catch.hpp>
#include <chrono>

#include "cmfpipe/cmf.hpp"

using namespace cmfpipe;
using namespace cmfpipe::cmf;

namespace {

Message with_context() {
    Extensions ext;
    ext.request = std::make_shared<const RequestExtension>(RequestExtension{"staging", "req-9"});
    ext.http = std::make_shared<const HttpExtension>(HttpExtension{
        {{"authorization", "Bearer x"}, {"COOKIE", "c=1"}, {"x-api-KEY", "k"}, {"X-Trace", "t1"}}});
    SecurityExtension security;
    security.labels = {"PII"};
    security.subject = std::make_shared<const SubjectExtension>(SubjectExtension{
        "bob", SubjectType::agent, {"admin"}, {"db.read"}, {"core"}, Json{{"sub", "bob"}}});
    security.objects = std::make_shared<const ObjectProfiles>(ObjectProfiles{
        {"file:///etc/passwd", ObjectSecurityProfile{"host", {"root"}, "privileged", {}}}});
    ext.security = std::make_shared<const SecurityExtension>(std::move(security));
    ext.agent = std::make_shared<const AgentExtension>(
        AgentExtension{"find bob", "s1", "c1", 3, "a1", "p1"});
    Resource resource{"r1", "file:///etc/passwd"};
    resource.blob = "cm9vdA==";
    resource.size_bytes = 4;
    return Message(Role::tool,
                   {ContentPart::make(resource),
                    ContentPart::make(ToolResult{"t1", "lookup", Json("plain answer"), false}),
                    ContentPart::make(PromptResult{"p1",
                                                   "greet",
                                                   {Message::text(Role::user, "hello"),
                                                    Message::text(Role::assistant, "world")}})},
                   std::nullopt, std::make_shared<const Extensions>(std::move(ext)));
}

}  // namespace

TEST_CASE("direction and action of every kind for every role", "[cmf][view]") {
    struct Row {
        PartPtr part;
        bool always_pre, always_post;
        ViewAction fixed;
    };
    const std::vector<Row> fixed{
        {ContentPart::make(ToolCall{"t", "n"}), true, false, ViewAction::execute},
        {ContentPart::make(PromptRequest{"p", "n"}), true, false, ViewAction::invoke},
        {ContentPart::make(ResourceReference{"r", "u"}), true, false, ViewAction::read},
        {ContentPart::make(ToolResult{"t", "n"}), false, true, ViewAction::receive},
        {ContentPart::make(PromptResult{"p", "n"}), false, true, ViewAction::receive},
        {ContentPart::make(Resource{"r", "u"}), false, true, ViewAction::read},
    };
    const std::vector<PartPtr> speaker{
        ContentPart::text("t"),           ContentPart::thinking("t"),
        ContentPart::make(ImageSource{}), ContentPart::make(VideoSource{}),
        ContentPart::make(AudioSource{}), ContentPart::make(DocumentSource{})};
    for (Role role : {Role::system, Role::developer, Role::user, Role::assistant, Role::tool}) {
        for (const auto& row : fixed) {
            MessageView v(row.part, role, nullptr);
            CHECK(v.is_pre() == row.always_pre);
            CHECK(v.is_post() == row.always_post);
            CHECK(v.action() == row.fixed);
        }
        const bool responds = role == Role::assistant || role == Role::tool;
        const ViewAction expected = role == Role::assistant ? ViewAction::generate
                                    : role == Role::tool    ? ViewAction::receive
                                                            : ViewAction::send;
        for (const auto& part : speaker) {
            MessageView v(part, role, nullptr);
            CHECK(v.is_post() == responds);
            CHECK(v.is_pre() == !responds);
            CHECK(v.action() == expected);
        }
    }
}

TEST_CASE("synthetic URIs, names and scannable content", "[cmf][view]") {
    const Message m(
        Role::assistant,
        {ContentPart::make(ToolCall{"t1", "get", {{"q", "é"}, {"n", {1, 2.5, nullptr}}}, "db"}),
         ContentPart::make(PromptRequest{"p1", "summarize", {{"text", "hi"}}}),
         ContentPart::make(ToolResult{"t1", "get", Json{{"rows", 2}}})});
    const auto views = iter_views(m, CapabilitySet{});
    REQUIRE(views.size() == 3);
    CHECK(views[0].uri() == "tool://db/get");
    CHECK(views[0].content() == R"({"q": "é", "n": [1, 2.5, null]})");
    CHECK(views[0].size_bytes() == 32);  // UTF-8 bytes: é is two
    CHECK(views[0].get_arg("q")->get<std::string>() == "é");
    CHECK(views[0].has_arg("n"));
    CHECK_FALSE(views[0].has_arg("missing"));
    CHECK(views[0].get_property("tool_id")->get<std::string>() == "t1");
    CHECK(views[1].uri() == "prompt://_/summarize");
    CHECK(views[1].name() == "summarize");
    CHECK(views[2].uri() == "tool_result://get");
    CHECK(views[2].content() == R"({"rows": 2})");
    CHECK(views[2].args() == nullptr);
    CHECK(views[2].is_tool());
    CHECK_FALSE(views[2].is_text());
}

TEST_CASE("a sealed thinking view says so in its properties, an unsealed one has none",
          "[cmf][view]") {
    const Message m(Role::assistant,
                    {ContentPart::thinking("plain"), ContentPart::thinking("signed", "S1"),
                     ContentPart::make(Thinking{"", "EmwK", true})});
    const auto views = iter_views(m, CapabilitySet{});
    REQUIRE(views.size() == 3);
    CHECK(views[0].properties() == Json::object());
    CHECK(views[1].properties() == Json{{"sealed", true}, {"redacted", false}});
    CHECK(views[1].content() == "signed");
    CHECK(views[2].properties() == Json{{"sealed", true}, {"redacted", true}});
    CHECK(views[2].content() == "");
}

TEST_CASE("resources, results and prompt results", "[cmf][view]") {
    const auto views = iter_views(with_context(), CapabilitySet::all());
    REQUIRE(views.size() == 3);
    CHECK(views[0].uri() == "file:///etc/passwd");
    CHECK_FALSE(views[0].has_content());                     // a blob is not scannable text
    CHECK(views[0].size_bytes() == 4);                       // but its declared size is kept
    CHECK(views[0].object()->trust_domain == "privileged");  // resources resolve by URI
    CHECK(views[1].content() == "plain answer");             // a string result is its own text
    CHECK(views[2].uri() == "prompt_result://greet");
    CHECK(views[2].content() == "hello\nworld");
    CHECK(views[2].get_property("message_count")->get<int>() == 2);
}

TEST_CASE("flat accessors follow the capabilities", "[cmf][view]") {
    const Message m = with_context();
    const MessageView all = iter_views(m, CapabilitySet::all())[1];
    CHECK(all.environment() == "staging");
    CHECK(all.request_id() == "req-9");
    CHECK(all.has_role("admin"));
    CHECK(all.has_permission("db.read"));
    CHECK(all.teams() == StringSet{"core"});
    CHECK(all.has_label("PII"));
    CHECK(all.session_id() == "s1");
    CHECK(all.turn() == 3);
    CHECK(*all.get_header("X-TRACE") == "t1");
    CHECK(*all.get_header("Authorization") == "Bearer x");  // processors with read_headers see it
    CHECK(all.has_header("cookie"));
    CHECK_FALSE(all.has_header("X-Trace-Id"));

    const MessageView none = iter_views(m, CapabilitySet{})[1];
    CHECK(none.environment() == "staging");  // base tier
    CHECK(none.subject() == nullptr);
    CHECK_FALSE(none.has_role("admin"));
    CHECK(none.labels().empty());
    CHECK(none.headers().empty());
    CHECK_FALSE(none.session_id().has_value());
    CHECK_FALSE(none.turn().has_value());

    const MessageView roles = iter_views(m, {Capability::read_roles})[1];
    CHECK(roles.subject()->id == "bob");
    CHECK(roles.has_role("admin"));
    CHECK_FALSE(roles.has_permission("db.read"));
    CHECK(roles.subject()->claims.empty());
}

TEST_CASE("to_dict strips sensitive headers whatever their case, and honours its options",
          "[cmf][view]") {
    const MessageView v = iter_views(with_context(), CapabilitySet::all())[1];
    const Json dict = v.to_dict();
    CHECK(dict.at("extensions").at("headers") == Json{{"X-Trace", "t1"}});
    CHECK(dict.at("content") == "plain answer");
    const Json bare = v.to_dict(ViewOptions{false, false});
    CHECK(bare.dump() ==
          R"({"kind":"tool_result","role":"tool","is_pre":false,"is_post":true,"action":"receive",)"
          R"("uri":"tool_result://lookup","name":"lookup","size_bytes":12,)"
          R"("properties":{"is_error":false,"tool_name":"lookup"}})");
    CHECK(v.to_opa_input(ViewOptions{false, false}) == Json{{"input", bare}});
}

TEST_CASE("URI globs: literal characters, * within a segment, ** across", "[cmf][view]") {
    CHECK(matches_uri_pattern("tool://my.namespace/tool", "tool://my.namespace/tool"));
    CHECK_FALSE(matches_uri_pattern("tool://myXnamespace/tool", "tool://my.namespace/tool"));
    CHECK_FALSE(matches_uri_pattern("tool://a/b", "tool://a/(b)"));
    CHECK(matches_uri_pattern("tool://a/(b)+", "tool://a/(b)+"));
    CHECK(matches_uri_pattern("tool://a/b", "tool://a/?") == false);
    CHECK(matches_uri_pattern("file:///x/y/z.txt", "file:///**.txt"));
    CHECK_FALSE(matches_uri_pattern("file:///x/y/z.txt", "file:///*.txt"));
    CHECK(matches_uri_pattern("file:///x/y/z.txt", "file:///*/*/*.txt"));
    CHECK(matches_uri_pattern("", ""));
    CHECK(matches_uri_pattern("", "*"));
    CHECK_FALSE(matches_uri_pattern("a", ""));
    CHECK(matches_uri_pattern("tool://_/get", "tool://*/get"));
    // A pattern that makes backtracking matchers explode stays fast here.
    const std::string uri(4000, 'a');
    std::string pattern;
    for (int i = 0; i < 200; ++i) pattern += "*a";
    pattern += "b";
    const auto start = std::chrono::steady_clock::now();
    CHECK_FALSE(matches_uri_pattern(uri, pattern));
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
    const MessageView text(ContentPart::text("x"), Role::user, nullptr);
    CHECK_FALSE(text.matches_uri_pattern("**"));  // no URI, nothing matches
}

TEST_CASE("views keep their parts alive and share the message's data", "[cmf][view]") {
    std::vector<MessageView> views;
    PartPtr part;
    {
        const Message m = with_context();
        part = m.part(1);
        views = iter_views(m, CapabilitySet::all());
    }
    CHECK(views[1].part_ptr() == part);
    CHECK(&views[1].part() == part.get());
    CHECK(views[1].content() == "plain answer");
}
