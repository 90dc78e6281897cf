#pragma once
// A forward-only reader over one small JSON document, for a guarded stream's fast path: it finds
// the few members a provider's common event carries (a text delta's text) without building a
// Json tree. It answers only what it is sure of: any doubt (bad syntax, invalid UTF-8, a key
// spelled with an escape, nesting past `max_depth`) makes it fail, and the caller then takes its
// full path (parse_json, which says what is wrong). Linear in the text; no allocation but the
// strings it decodes.
//
//   JsonScan scan(event.data);
//   if (!scan.enter_object()) -> full path
//   while (auto key = scan.next_key()) { if (*key == "delta") ... else scan.skip(); }
//   if (!scan.at_end()) -> full path   (every failure also shows as !scan.ok())
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cmfpipe::wire {

class JsonScan {
  public:
    explicit JsonScan(std::string_view text, std::size_t max_depth = 64)
        : text_(text), max_depth_(max_depth) {}

    bool ok() const { return ok_; }
    // '{' next (after white space): read it. False (and failed) otherwise.
    bool enter_object();
    // '[' next: read it.
    bool enter_array();
    // In an object entered: the next member's key, its ':' read (the value comes next); nullopt
    // at the object's '}' (read) or on a failure (then !ok()). A key with an escape fails.
    std::optional<std::string_view> next_key();
    // In an array entered: true when an element comes next; false at its ']' (read) or on a
    // failure.
    bool next_element();
    // The value next, read and checked, whatever it is.
    bool skip();
    // The value next, when it is null: read (true). Otherwise nothing is read (false; not a
    // failure).
    bool null();
    // The value next as a string, decoded (escapes, UTF-8 checked) into `out`. False (failed)
    // when it is not a string.
    bool string(std::string& out);
    // The value next as an integer of at most 18 digits, no fraction or exponent. False (failed)
    // otherwise.
    bool integer(std::int64_t& out);
    // Only white space is left (and nothing failed).
    bool at_end();

  private:
    bool fail() { return ok_ = false; }
    void space();
    bool literal(std::string_view word);
    bool number();
    // A string's body after its '"', up to and past the closing '"'; decoded into `out` when
    // given, else only checked.
    bool string_body(std::string* out);
    bool value(std::size_t depth);

    std::string_view text_;
    std::size_t at_ = 0;
    std::size_t max_depth_;
    std::size_t depth_ = 0;      // containers entered and not left
    bool first_member_ = false;  // the container just entered has no member read yet
    bool ok_ = true;
};

}  // namespace cmfpipe::wire
