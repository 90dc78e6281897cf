// wire::JsonScan::plain_object_text, plain_object, elements and at_array: the walk of a body's
// known keys that the text readers (openai chat_request_text.cpp and chat_completion_scan.cpp,
// anthropic request_text.cpp and answer_text.cpp) share.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "cmfpipe/wire/json_scan.hpp"

namespace {

using cmfpipe::wire::JsonScan;
using cmfpipe::wire::key_is;

// A body reader of the readers' shape: "items", an array of strings, read; "stop" declines the
// text; any other member skipped with skip_plain. What it read, or "declined".
std::string read_members_body(std::string_view text, std::size_t most_keys_in_skipped = 64) {
    JsonScan scan(text);
    std::vector<std::string> items;
    std::string order;  // the keys as `member` saw them
    const bool read = scan.plain_object_text<3>([&](std::string_view key) {
        order += std::string(key) + ";";
        if (key_is(key, "items"))
            return scan.elements([&] { return scan.string(items.emplace_back()); });
        if (key_is(key, "stop")) return false;
        return scan.skip_plain(most_keys_in_skipped);
    });
    if (!read) return "declined after " + order;
    std::string out = order + " items:";
    for (const std::string& item : items) out += " " + item;
    return out;
}

}  // namespace

TEST_CASE("wire: JsonScan::plain_object_text reads each member, skips the others plainly") {
    CHECK(read_members_body(R"({"model":"m","items":["a","b"],"n":{"x":[1,2]}})") ==
          "model;items;n; items: a b");
    CHECK(read_members_body(R"( { "items" : [ ] } )") == "items; items:");
    CHECK(read_members_body("{}") == " items:");
    // The member declines: nothing after it is read.
    CHECK(read_members_body(R"({"a":1,"stop":0,"items":["x"]})") == "declined after a;stop;");
    // A key twice, or past the most (3 here), declines the text before `member` sees it.
    CHECK(read_members_body(R"({"a":1,"a":2})") == "declined after a;");
    CHECK(read_members_body(R"({"a":1,"b":2,"c":3})") == "a;b;c; items:");
    CHECK(read_members_body(R"({"a":1,"b":2,"c":3,"d":4})") == "declined after a;b;c;");
    // A key spelled with an escape fails the scan; so does a skipped value that is not plain.
    CHECK(read_members_body(R"({"\u0061":1})") == "declined after ");
    CHECK(read_members_body(R"({"a":{"k":1,"k":2}})") == "declined after a;");
    CHECK(read_members_body(R"({"a":{"k":1,"l":2}})", 1) == "declined after a;");
}

TEST_CASE("wire: JsonScan::plain_object_text takes the whole text as one object, nothing else") {
    CHECK(read_members_body(R"({"a":1} )") == "a; items:");
    CHECK(read_members_body(R"({"a":1} {})") == "declined after a;");
    CHECK(read_members_body(R"({"a":1)") == "declined after a;");
    CHECK(read_members_body(R"(["a"])") == "declined after ");
    CHECK(read_members_body("") == "declined after ");
}

TEST_CASE("wire: JsonScan::elements reads each element, and fails on what is no array") {
    CHECK(read_members_body(R"({"items":["a","b","c"]})") == "items; items: a b c");
    // An element the reader does not take declines the text.
    CHECK(read_members_body(R"({"items":["a",2]})") == "declined after items;");
    // Not an array; an array not closed; a trailing comma.
    CHECK(read_members_body(R"({"items":"a"})") == "declined after items;");
    CHECK(read_members_body(R"({"items":["a")") == "declined after items;");
    CHECK(read_members_body(R"({"items":["a",]})") == "declined after items;");
    JsonScan scan("[]");
    int calls = 0;
    CHECK(scan.elements([&] { return ++calls > 0; }));
    CHECK(calls == 0);
    CHECK(scan.at_end());
}

namespace {

// An object inside a text, read by plain_object<2>: its "n" read as an integer, any other member
// skipped plainly; then what follows it. What it read, or "declined".
std::string read_inner_object(std::string_view text) {
    JsonScan scan(text);
    std::int64_t n = -1;
    std::string keys;
    if (!scan.enter_array() || !scan.next_element()) return "no array";
    const bool read = scan.plain_object<2>([&](std::string_view key) {
        keys += std::string(key) + ";";
        if (key_is(key, "n")) return scan.integer(n);
        return scan.skip_plain(64);
    });
    if (!read) return "declined after " + keys;
    const bool more = scan.next_element();
    return keys + " n=" + std::to_string(n) + (more ? " more" : " last") +
           (scan.at_end() ? " end" : " not end");
}

}  // namespace

TEST_CASE("wire: JsonScan::plain_object reads an object inside the text, keys distinct") {
    CHECK(read_inner_object(R"([{"n":7,"x":[1]}])") == "n;x; n=7 last end");
    CHECK(read_inner_object(R"([ { } , 1 ])") == " n=-1 more not end");
    // A key twice, or past the most (2 here), declines; so does a value `member` refuses.
    CHECK(read_inner_object(R"([{"n":1,"n":2}])") == "declined after n;");
    CHECK(read_inner_object(R"([{"a":1,"b":2,"n":3}])") == "declined after a;b;");
    CHECK(read_inner_object(R"([{"n":"7"}])") == "declined after n;");
    // No object next; an object not closed; a key spelled with an escape.
    CHECK(read_inner_object(R"([[]])") == "declined after ");
    CHECK(read_inner_object(R"([{"n":1)") == "declined after n;");
    CHECK(read_inner_object(R"([{"\u006e":1}])") == "declined after ");
}

TEST_CASE("wire: JsonScan::at_array says whether an array is next, reading nothing") {
    JsonScan array(" \n[\"a\"]");
    CHECK(array.at_array());
    std::vector<std::string> items;
    CHECK(array.elements([&] { return array.string(items.emplace_back()); }));
    CHECK(items == std::vector<std::string>{"a"});
    CHECK(array.at_end());
    // Not an array: not a failure, and the value is still there to read.
    JsonScan text(" \"b\"");
    CHECK_FALSE(text.at_array());
    CHECK(text.ok());
    std::string b;
    CHECK(text.string(b));
    CHECK(b == "b");
    CHECK(text.at_end());
    JsonScan empty("  ");
    CHECK_FALSE(empty.at_array());
    CHECK(empty.at_end());
}
