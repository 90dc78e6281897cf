#pragma once
// The from_wire fuzz targets: a completion, as a model or a provider returned it, back to CMF
// through one adapter kind, as `cmfpipe parse-output --from KIND` does.
#include <memory>

#include "cmfpipe/adapter.hpp"
#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/cmf/message.hpp"
#include "fuzz_input.hpp"

namespace cmfpipe::fuzz {

inline int from_wire(std::string_view kind, const std::uint8_t* data, std::size_t size) {
    static const std::shared_ptr<Adapter> adapter = plugins().make_adapter(kind);
    static const Json options = Json{{"source", "<fuzz input>"}};
    return run(data, size, Admit::model_output, [](std::string_view completion) {
        const auto messages = adapter->from_wire(completion, options);
        // The CLI prints what it parsed: converting back must hold for anything from_wire built.
        (void)cmf::messages_to_json(messages).dump(-1, ' ', false, Json::error_handler_t::replace);
    });
}

}  // namespace cmfpipe::fuzz
