#pragma once
// Where a Prompty message's metadata (the role marker's attributes, §6.5) lives in CMF: the
// mutable custom slot, as {"metadata": {...}}. No attributes -> no custom slot at all.
#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe::prompty_parser {

inline cmf::Message with_metadata(cmf::Message message, const Json& attributes) {
    if (!attributes.is_object() || attributes.empty()) return message;
    return message.with_custom(std::make_shared<const Json>(Json{{"metadata", attributes}}));
}

}  // namespace cmfpipe::prompty_parser
