#include "cmfpipe/core/pipeline/messages_file.hpp"

#include "cmfpipe/cmf/extensions.hpp"
#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/core/files.hpp"
#include "cmfpipe/errors.hpp"

namespace cmfpipe::pipeline {
namespace {

// Each slot of `shared` that `own` lacks.
cmf::Extensions fill_absent(cmf::Extensions own, const cmf::Extensions& shared) {
    auto fill = [](auto& slot, const auto& from) {
        if (!slot) slot = from;
    };
    fill(own.request, shared.request);
    fill(own.agent, shared.agent);
    fill(own.http, shared.http);
    fill(own.security, shared.security);
    fill(own.delegation, shared.delegation);
    fill(own.mcp, shared.mcp);
    fill(own.completion, shared.completion);
    fill(own.provenance, shared.provenance);
    fill(own.llm, shared.llm);
    fill(own.framework, shared.framework);
    fill(own.meta, shared.meta);
    fill(own.custom, shared.custom);
    return own;
}

}  // namespace

std::vector<cmf::Message> messages_from_document(const Json& document, const std::string& source) {
    try {
        if (!document.is_object())
            throw ValueError("the document must be an object with a \"messages\" list");
        for (const auto& [key, value] : document.items()) {
            if (key != "messages" && key != "extensions") {
                throw ValueError("unknown key \"" + key + "\" (known: messages, extensions)");
            }
        }
        if (!document.contains("messages")) throw ValueError("missing \"messages\"");
        auto messages = cmf::messages_from_json(document.at("messages"), "messages");
        if (!document.contains("extensions") || document.at("extensions").is_null())
            return messages;

        const auto shared = cmf::extensions_from_json(document.at("extensions"), "extensions");
        const auto shared_ptr = std::make_shared<const cmf::Extensions>(shared);
        for (auto& message : messages) {
            if (message.extensions().empty()) {
                message = message.with_extensions(shared_ptr);  // the common case: fully shared
            } else {
                message = message.with_extensions(std::make_shared<const cmf::Extensions>(
                    fill_absent(message.extensions(), shared)));
            }
        }
        return messages;
    } catch (const ValueError& e) {
        throw ValueError(e.message(), e.where().empty() ? SourceLocation{source} : e.where());
    }
}

std::vector<cmf::Message> load_messages_file(const std::filesystem::path& file) {
    return messages_from_document(read_json_file(file), file.string());
}

}  // namespace cmfpipe::pipeline
