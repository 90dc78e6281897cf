// Copy-on-write with structural sharing: copies share pointers; a with_ change allocates only
// the changed part/slot and the path to it.
#include <catch2/catch.hpp>

#include "cmfpipe/cmf.hpp"

using namespace cmfpipe;
using namespace cmfpipe::cmf;

namespace {

Message sample() {
    Extensions ext;
    ext.request =
        std::make_shared<const RequestExtension>(RequestExtension{"prod", "r1", {}, {}, {}});
    SecurityExtension security;
    security.labels = {"PII"};
    security.subject =
        std::make_shared<const SubjectExtension>(SubjectExtension{"alice", SubjectType::user});
    security.objects = std::make_shared<const ObjectProfiles>(
        ObjectProfiles{{"tool", ObjectSecurityProfile{"host", {}, {}, {}}}});
    ext.security = std::make_shared<const SecurityExtension>(std::move(security));
    ext.http = std::make_shared<const HttpExtension>(HttpExtension{{{"X-Id", "1"}}});
    ext.custom = std::make_shared<const Json>(Json{{"k", "v"}});
    return Message(Role::assistant,
                   {ContentPart::text("a"), ContentPart::make(ToolCall{"t1", "x", {{"q", 1}}, {}}),
                    ContentPart::text("c")},
                   std::nullopt, std::make_shared<const Extensions>(std::move(ext)));
}

}  // namespace

TEST_CASE("copying a message shares every pointer", "[cmf][sharing]") {
    const Message a = sample();
    const Message b = a;  // NOLINT: the copy is the point
    CHECK(b.content_ptr() == a.content_ptr());
    CHECK(b.extensions_ptr() == a.extensions_ptr());
    CHECK(b.part(1) == a.part(1));
    CHECK(b.security() == a.security());
}

TEST_CASE("with_part allocates the part and the content list only", "[cmf][sharing]") {
    const Message a = sample();
    const Message b = a.with_part(1, ContentPart::text("replaced"));
    CHECK(a.part(1)->type() == ContentType::tool_call);  // the original is untouched
    CHECK(b.part(1)->type() == ContentType::text);
    CHECK(b.content_ptr() != a.content_ptr());
    CHECK(b.part(0) == a.part(0));
    CHECK(b.part(2) == a.part(2));
    CHECK(b.extensions_ptr() == a.extensions_ptr());
    CHECK_THROWS_AS(a.with_part(3, ContentPart::text("x")), ValueError);
    CHECK_THROWS_WITH(a.with_part(3, ContentPart::text("x")),
                      "cmf::Message::with_part: no part 3 (3 parts)");
}

TEST_CASE("with_<slot> allocates the slot and the extensions record only", "[cmf][sharing]") {
    const Message a = sample();
    const Message b = a.with_custom(std::make_shared<const Json>(Json{{"k", "changed"}}));
    CHECK(b.extensions_ptr() != a.extensions_ptr());
    CHECK(b.custom() != a.custom());
    CHECK(*a.custom() == Json{{"k", "v"}});
    CHECK(b.request() == a.request());
    CHECK(b.security() == a.security());
    CHECK(b.http() == a.http());
    CHECK(b.content_ptr() == a.content_ptr());
}

TEST_CASE("with_labels_added keeps subject, objects and data shared", "[cmf][sharing]") {
    const Message a = sample();
    const Message b = a.with_labels_added({"SECRET"});
    CHECK(b.security() != a.security());
    CHECK(b.security()->labels == StringSet{"PII", "SECRET"});
    CHECK(a.security()->labels == StringSet{"PII"});
    CHECK(b.security()->subject == a.security()->subject);
    CHECK(b.security()->objects == a.security()->objects);
    CHECK(b.request() == a.request());
    CHECK(b.http() == a.http());
    CHECK(b.content_ptr() == a.content_ptr());
}

TEST_CASE("role and channel changes share content and extensions", "[cmf][sharing]") {
    const Message a = sample();
    const Message b = a.with_role(Role::tool).with_channel(Channel::analysis);
    CHECK(b.role() == Role::tool);
    CHECK(b.channel() == Channel::analysis);
    CHECK(a.role() == Role::assistant);
    CHECK(b.content_ptr() == a.content_ptr());
    CHECK(b.extensions_ptr() == a.extensions_ptr());
}

TEST_CASE("messages without parts or extensions share one empty record", "[cmf][sharing]") {
    const Message a(Role::user);
    const Message b(Role::system);
    CHECK(a.content_ptr() == b.content_ptr());
    CHECK(a.extensions_ptr() == b.extensions_ptr());
    CHECK(a.extensions().empty());
    CHECK(a.security() == nullptr);
    // Removing the last slot returns to the shared empty record.
    const Message c =
        sample().with_request(nullptr).with_security(nullptr).with_http(nullptr).with_custom(
            nullptr);
    CHECK(c.extensions_ptr() == a.extensions_ptr());
}

TEST_CASE("value equality looks through pointers", "[cmf][sharing]") {
    const Message a = sample();
    const Message b = message_from_json(message_to_json(a));
    CHECK(b.content_ptr() != a.content_ptr());
    CHECK(a == b);
    CHECK_FALSE(a == a.with_labels_added({"X"}));
    CHECK_THROWS_AS(Message(Role::user, Content{nullptr}), ValueError);
    CHECK_THROWS_WITH(Message(Role::user, Content{nullptr}),
                      "cmf::Message: a content part is null");
    CHECK_THROWS_AS(a.with_custom(std::make_shared<const Json>(Json::array())), ValueError);
    CHECK_THROWS_WITH(a.with_custom(std::make_shared<const Json>(Json::array())),
                      "cmf::Message::with_custom: custom must be a JSON object");
    CHECK_THROWS_AS(MessageView(nullptr, Role::user, nullptr), ValueError);
    CHECK_THROWS_WITH(MessageView(nullptr, Role::user, nullptr), "cmf::MessageView: part is null");
}
