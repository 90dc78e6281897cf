#pragma once
// Harmony messages parsed from a completion -> CMF messages, one per harmony message:
//   channel analysis (no recipient)        a thinking part, channel analysis
//   other assistant text                   a text part, the message's channel
//   assistant to=NS.NAME with a JSON body  a tool_call part {tool_call_id "call_N", name NAME,
//                                          namespace NS (none for "functions"), arguments}
//   output of tool NS.NAME                 role tool, a tool_result part {tool_name NAME (NS.NAME
//                                          outside "functions"), content: the text as a string,
//                                          tool_call_id of the latest unanswered call to it}
// Harmony has no call ids: calls are numbered call_1, call_2, ... in the order they appear.
// Assistant messages get completion {stop_reason: end | return | call, raw_format "harmony"}.
// What CMF has no field for goes to custom:
//   custom.harmony     {recipient, content_type, channel} as written, when not implied by the parts
//   custom.incomplete  true: the text was cut inside this message (always the last one)
//   custom.pending     raw text at the cut not mapped yet (half a header or marker, the
//                      unfinished arguments of a call)
//   custom.invalid_tool_arguments [{tool_call_id, name, raw, error[, namespace]}]: a finished
//                      call (JSON declared) whose arguments are not a JSON object: no part, the
//                      raw text kept here (the policy of cmfpipe/wire/tool_arguments.hpp)
#include <memory>
#include <string_view>
#include <vector>

#include "cmfpipe/cmf/message.hpp"
#include "completion_parser.hpp"

namespace cmfpipe::harmony {

std::vector<cmf::Message> to_cmf(const std::vector<RawMessage>& raw);

// The same mapping, one message at a time (calls are numbered and answered across messages).
class CmfMapping {
  public:
    CmfMapping();
    ~CmfMapping();
    cmf::Message map(const RawMessage& raw);

  private:
    class Mapper;
    std::unique_ptr<Mapper> mapper_;
};

}  // namespace cmfpipe::harmony
