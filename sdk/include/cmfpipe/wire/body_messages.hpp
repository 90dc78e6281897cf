#pragma once
// What the provider adapters share for the body calls of cmfpipe::Adapter (request_messages,
// with_request_messages, with_response_messages): where each CMF message read out of a body came
// from, what of it a processor changed, and the wire lists rebuilt in their original order, so
// that a message written back keeps everything it had on the wire that CMF cannot hold.
//
//   - Origin: a message read out of a request body carries provenance {source: "<kind> request",
//     message_id: the path of its wire message, "messages[3]"}. Provenance is immutable in the
//     pipeline, so the way back finds the wire message a processed message stands for; a message
//     without it is new and is written as to_wire writes it.
//   - Unchanged (same role, channel, parts and the custom keys the adapter writes): the wire
//     message goes back as it came, byte for byte in JSON terms.
//   - Changed: the adapter rebuilds the wire message from the original JSON, each part at its
//     slot (MessageSlots): a part left as it was keeps its element, a rewritten one is written
//     over its element (rewrite_element keeps the members CMF has no place for), a new one
//     follows the element before it (ListRebuild), a removed one is left out.
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe::wire {

// ---- origin
// `message` with provenance {source, message_id: path}.
cmf::Message with_body_origin(const cmf::Message& message, std::string_view source,
                              std::string path);
// The path with_body_origin gave `message`, when its provenance source is `source`.
std::optional<std::string> body_origin(const cmf::Message& message, std::string_view source);
// N when `path` is "<array>[N]" exactly ("messages[3]" -> 3); nullopt otherwise.
std::optional<std::size_t> body_index(std::string_view path, std::string_view array);

// ---- slots: where the parts of one message were in its wire message
struct PartSlot {
    std::string member;                // "content", "tool_calls", ...; "" = the whole message
    std::optional<std::size_t> index;  // the element of that member, when it is an array
    bool operator==(const PartSlot&) const = default;
};
struct MessageSlots {
    std::vector<PartSlot> parts;    // one per part, in part order
    std::vector<PartSlot> flagged;  // one per custom.invalid_tool_arguments entry, in order
    std::vector<PartSlot> opaque;   // elements that made no part (redacted thinking): kept as is
};
// The JSON a slot names in `message` (std::out_of_range when it is not there).
const Json& at_slot(const Json& message, const PartSlot& slot);

// ---- what changed
// Parts equal by value, in order (cmf::Content itself compares pointers).
bool same_parts(const cmf::Content& a, const cmf::Content& b);
// Whether `after` writes the same wire message as `before`: role, channel, parts and the values
// of `custom_keys` in custom (absent equals absent). Other extensions never reach the wire.
bool same_on_wire(const cmf::Message& before, const cmf::Message& after,
                  std::initializer_list<std::string_view> custom_keys);
// For each part of `after`, the part of `before` it stands for (nullopt: a new part). The same
// count with the same type at every index pairs by position (a part a processor rewrote stands
// for the one it replaced). Otherwise each part of `after` takes the next equal part of `before`
// within 32 places, in order; then, between those pairs, a part left over takes the next unpaired
// part of its type (rewritten while others were added or removed). A part moved further is taken
// as removed and added again.
std::vector<std::optional<std::size_t>> pair_parts(const cmf::Content& before,
                                                   const cmf::Content& after);
// The flagged tool calls (custom.invalid_tool_arguments) of `before` that `after` still has
// (same tool_call_id and raw), and the entries of `after` that are new.
struct FlaggedCallChanges {
    std::vector<bool> kept;  // per entry of `before`
    std::vector<Json> added;
};
FlaggedCallChanges flagged_call_changes(const cmf::Message& before, const cmf::Message& after);

// ---- writing back
// An element (block, tool call) rewritten: `written`, what to_wire writes for the part, over
// `original`. Members of `owned` (those the part stands for) that `written` lacks are removed;
// every other member of `original` (cache_control, detail, ...) stays in its place; members new
// in `written` go at the end.
Json rewrite_element(const Json& original, const Json& written,
                     std::initializer_list<std::string_view> owned);

// A wire list (content blocks, tool calls) rebuilt in its original order: an element kept or
// rewritten takes its original index; a new element follows the one given before it in the same
// message (or goes first when none was). Several CMF messages may feed one list (an anthropic user
// message that holds tool results and text): call next_message() between them.
class ListRebuild {
  public:
    void at(std::size_t original_index, Json element);
    void added(Json element);
    void appended(Json element);  // after every element
    void next_message() { last_ = -1; }
    bool empty() const { return items_.empty(); }
    Json array() const;

  private:
    struct Item {
        long long anchor;  // original index; -1 before all
        int added;         // 0: at its index, 1: after it
        std::size_t sequence;
        Json element;
    };
    std::vector<Item> items_;
    long long last_ = -1;
};

// `object` with members replaced in place by `values` (a null value removes the member); those it
// lacks are inserted before the member `insert_before` (at the end when it has none).
Json replace_members(const Json& object, std::vector<std::pair<std::string, Json>> values,
                     std::string_view insert_before = {});

// A tool result's content that is an array of content blocks (objects with a string "type"; []
// too): providers take it as it is. Any other non-string value goes as its JSON text.
bool is_block_array(const Json& content);

}  // namespace cmfpipe::wire
