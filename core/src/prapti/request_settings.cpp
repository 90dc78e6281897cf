#include "request_settings.hpp"

#include <string_view>

#include "cmfpipe/errors.hpp"

namespace cmfpipe::prapti {
namespace {

// Prapti's spelling for the responder a document talks to.
constexpr std::string_view default_responder = "responders.default.";

constexpr std::string_view known_keys =
    "model, temperature, top_p, max_tokens, stop, stop_sequence, n and seed, also as "
    "responders.default.KEY; and config_root";

SourceLocation location(const Json& line, const char* column) {
    return {line.at("file").get<std::string>(), line.at("line").get<int>(),
            line.at(column).get<int>()};
}

[[noreturn]] void wrong_type(const std::string& key, const char* wanted, const Json& value,
                             const SourceLocation& at) {
    throw ValueError("'" + key + "' wants " + wanted + ", not " + value.dump(), at);
}

Json number(const std::string& key, const Json& value, const SourceLocation& at) {
    if (!value.is_number()) wrong_type(key, "a number", value, at);
    return value;
}

Json integer(const std::string& key, const Json& value, std::int64_t min,
             const SourceLocation& at) {
    if (!value.is_number_integer() || value.get<std::int64_t>() < min)
        wrong_type(key, min > 0 ? "a whole number from 1" : "a whole number", value, at);
    return value;
}

// A stop sequence or a list of them: always a list in the request.
Json stop_sequences(const std::string& key, const Json& value, const SourceLocation& at) {
    if (value.is_string()) return Json::array({value});
    if (!value.is_array()) wrong_type(key, "a string or a list of strings", value, at);
    for (const Json& element : value) {
        if (!element.is_string()) wrong_type(key, "a string or a list of strings", value, at);
    }
    return value;
}

}  // namespace

void RequestSettings::apply(const Json& line) {
    const SourceLocation at = location(line, "column");
    if (line.contains("action")) {
        const std::string action = line.at("action").get<std::string>();
        if (action == "plugins.load") {
            notices_.push_back(
                {at, "plugins.load is not needed: cmfpipe loads its plugins itself"});
        } else if (action == "responder.new") {
            notices_.push_back(
                {at, "responder.new is not needed: the adapter of --to KIND writes the request"});
        } else {
            throw ValueError("unknown action '" + action +
                                 "' (cmfpipe knows include and include.code, and accepts "
                                 "plugins.load and responder.new, which it does not need)",
                             at);
        }
        return;
    }
    assign(line.at("key").get<std::string>(), line.at("value"), at, location(line, "value_column"));
}

void RequestSettings::assign(const std::string& written, const Json& value,
                             const SourceLocation& key_at, const SourceLocation& at) {
    std::string_view key = written;
    if (key.starts_with(default_responder)) key.remove_prefix(default_responder.size());
    if (key == "model") {
        if (!value.is_string() || value.get_ref<const std::string&>().empty())
            wrong_type(written, "a model name", value, at);
        id_ = value.get<std::string>();
    } else if (key == "temperature") {
        options_["temperature"] = number(written, value, at);
    } else if (key == "top_p") {
        options_["topP"] = number(written, value, at);
    } else if (key == "max_tokens") {
        options_["maxOutputTokens"] = integer(written, value, 1, at);
    } else if (key == "stop" || key == "stop_sequence") {
        options_["stopSequences"] = stop_sequences(written, value, at);
    } else if (key == "n") {
        options_["additionalProperties"]["n"] = integer(written, value, 1, at);
    } else if (key == "seed") {
        options_["seed"] = integer(written, value, INT64_MIN, at);
    } else if (key == "config_root" && key.size() == written.size()) {
        // Where the search for .prapticonfig.md files stops (config_files.hpp); nothing else.
        if (!value.is_boolean()) wrong_type(written, "true or false", value, at);
    } else {
        throw ValueError("unknown configuration key '" + written +
                             "' (cmfpipe sets the request from " + std::string(known_keys) + ")",
                         key_at);
    }
}

std::optional<prompty::Model> RequestSettings::model() const {
    if (!id_ && options_.empty()) return std::nullopt;
    prompty::Model model;
    model.id = id_.value_or("");
    if (!options_.empty()) model.options = options_;
    return model;
}

}  // namespace cmfpipe::prapti
