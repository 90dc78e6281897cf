// Marking a message of a cut completion (see wire/incomplete.hpp).
#include "cmfpipe/wire/incomplete.hpp"

namespace cmfpipe::wire {

cmf::Message mark_incomplete(const cmf::Message& message) {
    Json custom = {{"incomplete", true}};
    if (const auto& old = message.custom()) {
        for (const auto& [key, value] : old->items())
            if (key != "incomplete") custom[key] = value;
    }
    return message.with_custom(std::make_shared<const Json>(std::move(custom)));
}

}  // namespace cmfpipe::wire
