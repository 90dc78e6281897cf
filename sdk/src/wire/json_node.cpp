#include "cmfpipe/wire/json_node.hpp"

#include "cmfpipe/errors.hpp"

namespace cmfpipe::wire {

WireNode::WireNode(std::string what, const Json& value, std::string path)
    : what_(std::move(what)), value_(&value), path_(std::move(path)) {}

std::string_view json_type_name(const Json& value) {
    switch (value.type()) {
        case Json::value_t::null:
            return "null";
        case Json::value_t::object:
            return "object";
        case Json::value_t::array:
            return "array";
        case Json::value_t::string:
            return "string";
        case Json::value_t::boolean:
            return "boolean";
        case Json::value_t::number_integer:
        case Json::value_t::number_unsigned:
            return "integer";
        case Json::value_t::number_float:
            return "number";
        default:
            return "binary";
    }
}

void WireNode::fail(const std::string& message) const {
    throw ValueError(what_ + ": " + path_ + ": " + message);
}

void WireNode::wrong_type(std::string_view expected) const {
    fail("expected " + std::string(expected) + ", got " + std::string(json_type_name(*value_)));
}

const WireNode& WireNode::object() const {
    if (!value_->is_object()) wrong_type("an object");
    return *this;
}

const WireNode& WireNode::array() const {
    if (!value_->is_array()) wrong_type("an array");
    return *this;
}

WireNode WireNode::at(std::string_view key) const {
    object();
    auto it = value_->find(key);
    std::string child = path_ + "." + std::string(key);
    if (it == value_->end() || it->is_null()) {
        throw ValueError(what_ + ": " + child + ": missing (required)");
    }
    return WireNode(what_, *it, std::move(child));
}

std::optional<WireNode> WireNode::find(std::string_view key) const {
    object();
    auto it = value_->find(key);
    if (it == value_->end() || it->is_null()) return std::nullopt;
    return WireNode(what_, *it, path_ + "." + std::string(key));
}

std::vector<WireNode> WireNode::elements() const {
    array();
    std::vector<WireNode> out;
    out.reserve(value_->size());
    for (std::size_t i = 0; i < value_->size(); ++i) {
        out.emplace_back(what_, (*value_)[i], path_ + "[" + std::to_string(i) + "]");
    }
    return out;
}

const std::string& WireNode::string() const {
    if (!value_->is_string()) wrong_type("a string");
    return value_->get_ref<const std::string&>();
}

std::int64_t WireNode::integer() const {
    if (value_->is_number_integer()) return value_->get<std::int64_t>();
    if (value_->is_number_unsigned()) {
        auto u = value_->get<std::uint64_t>();
        if (u <= static_cast<std::uint64_t>(INT64_MAX)) return static_cast<std::int64_t>(u);
    }
    wrong_type("an integer");
}

bool WireNode::boolean() const {
    if (!value_->is_boolean()) wrong_type("a boolean");
    return value_->get<bool>();
}

std::string WireNode::string_or(std::string_view key, std::string_view fallback) const {
    auto node = find(key);
    return node ? node->string() : std::string(fallback);
}

std::optional<std::string> WireNode::optional_string(std::string_view key) const {
    auto node = find(key);
    if (!node) return std::nullopt;
    return node->string();
}

std::optional<std::int64_t> WireNode::optional_integer(std::string_view key) const {
    auto node = find(key);
    if (!node) return std::nullopt;
    return node->integer();
}

Json parse_wire_json(std::string_view text, const std::string& what) {
    try {
        return Json::parse(text.begin(), text.end());
    } catch (const Json::parse_error& e) {
        // e.byte is 1-based (the position just past the offending character).
        std::size_t offset = e.byte == 0 ? 0 : e.byte - 1;
        if (offset > text.size()) offset = text.size();
        int line = 1, column = 1;
        for (std::size_t i = 0; i < offset; ++i) {
            if (text[i] == '\n') {
                ++line;
                column = 1;
            } else {
                ++column;
            }
        }
        std::string reason = e.what();
        if (auto at = reason.find("syntax error"); at != std::string::npos)
            reason = reason.substr(at);
        throw ValueError(what + " is not JSON: " + reason,
                         SourceLocation{"<" + what + ">", line, column});
    }
}

}  // namespace cmfpipe::wire
