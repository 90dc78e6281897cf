#include "cmfpipe/json_reader.hpp"

#include <charconv>
#include <limits>

#include "cmfpipe/errors.hpp"

namespace cmfpipe {

JsonReader::JsonReader(std::string what, const Json& value, std::string path,
                       const SourceLocator* locator)
    : what_(std::move(what)), value_(&value), path_(std::move(path)), locator_(locator) {}

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

std::string json_quoted(std::string_view text) {
    return Json(std::string(text)).dump(-1, ' ', false, Json::error_handler_t::replace);
}

// A child's path is made for every node read, whether or not an error names it: one allocation
// each, no temporaries.
std::string JsonReader::path_of(std::string_view key) const {
    if (path_.empty()) return std::string(key);
    std::string path;
    path.reserve(path_.size() + 1 + key.size());
    path.append(path_).append(1, '.').append(key);
    return path;
}

std::string JsonReader::path_of(std::size_t index) const {
    char digits[24];
    const auto written = std::to_chars(digits, digits + sizeof digits, index);
    const std::string_view number(digits, static_cast<std::size_t>(written.ptr - digits));
    std::string path;
    path.reserve(path_.size() + number.size() + 2);
    path.append(path_).append(1, '[').append(number).append(1, ']');
    return path;
}

SourceLocation JsonReader::location() const {
    return locator_ ? locator_->locate(path_) : SourceLocation{};
}

void JsonReader::fail(const std::string& message) const {
    std::string text = path_.empty() ? message : path_ + ": " + message;
    throw ValueError(what_.empty() ? text : what_ + ": " + text, location());
}

void JsonReader::fail_expected(std::string_view expected) const {
    fail("expected " + std::string(expected) + ", got " + std::string(json_type_name(*value_)));
}

const JsonReader& JsonReader::object() const {
    if (!value_->is_object()) fail_expected("an object");
    return *this;
}

const JsonReader& JsonReader::array() const {
    if (!value_->is_array()) fail_expected("an array");
    return *this;
}

JsonReader JsonReader::at(std::string_view key) const {
    object();
    auto it = value_->find(key);
    if (it == value_->end() || it->is_null()) {
        JsonReader(what_, *value_, path_of(key), locator_).fail("missing (required)");
    }
    return JsonReader(what_, *it, path_of(key), locator_);
}

std::optional<JsonReader> JsonReader::find(std::string_view key) const {
    object();
    auto it = value_->find(key);
    if (it == value_->end() || it->is_null()) return std::nullopt;
    return JsonReader(what_, *it, path_of(key), locator_);
}

std::vector<JsonReader> JsonReader::elements() const {
    array();
    std::vector<JsonReader> out;
    out.reserve(value_->size());
    for (std::size_t i = 0; i < value_->size(); ++i)
        out.emplace_back(what_, (*value_)[i], path_of(i), locator_);
    return out;
}

std::vector<std::pair<std::string, JsonReader>> JsonReader::members() const {
    object();
    std::vector<std::pair<std::string, JsonReader>> out;
    out.reserve(value_->size());
    for (const auto& [key, item] : value_->items())
        out.emplace_back(key, JsonReader(what_, item, path_of(key), locator_));
    return out;
}

const JsonReader& JsonReader::only_fields(std::initializer_list<std::string_view> allowed) const {
    object();
    for (const auto& [key, value] : value_->items()) {
        bool known = false;
        for (auto name : allowed) known = known || name == key;
        if (known) continue;
        std::string list;
        for (auto name : allowed) {
            if (!list.empty()) list += ", ";
            list += name;
        }
        JsonReader(what_, value, path_of(key), locator_)
            .fail("unknown field (expected one of: " + list + ")");
    }
    return *this;
}

Json JsonReader::members_except(std::initializer_list<std::string_view> known) const {
    object();
    Json out = Json::object();
    for (const auto& [key, value] : value_->items()) {
        bool listed = false;
        for (auto name : known) listed = listed || name == key;
        if (!listed) out[key] = value;
    }
    return out;
}

const std::string& JsonReader::string() const {
    if (!value_->is_string()) fail_expected("a string");
    return value_->get_ref<const std::string&>();
}

std::int64_t JsonReader::integer() const {
    if (value_->is_number_unsigned()) {
        const auto u = value_->get<std::uint64_t>();
        if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            fail("integer " + value_->dump() + " is out of range");
        return static_cast<std::int64_t>(u);
    }
    if (!value_->is_number_integer()) fail_expected("an integer");
    return value_->get<std::int64_t>();
}

std::int64_t JsonReader::integer_in(std::int64_t min, std::int64_t max) const {
    const std::string expected =
        "an integer from " + std::to_string(min) + " to " + std::to_string(max);
    if (!value_->is_number_integer()) fail_expected(expected);
    if (value_->is_number_unsigned() &&
        value_->get<std::uint64_t>() > static_cast<std::uint64_t>(max))
        fail("expected " + expected + ", got " + value_->dump());
    const std::int64_t n = value_->get<std::int64_t>();
    if (n < min || n > max) fail("expected " + expected + ", got " + value_->dump());
    return n;
}

bool JsonReader::boolean() const {
    if (!value_->is_boolean()) fail_expected("a boolean");
    return value_->get<bool>();
}

std::vector<std::string> JsonReader::strings() const {
    if (!value_->is_array()) fail_expected("an array of strings");
    std::vector<std::string> out;
    out.reserve(value_->size());
    for (const JsonReader& item : elements()) out.push_back(item.string());
    return out;
}

// The optional scalars below read the member in place: a child reader (and its path) is made
// only to report a member of the wrong type.
namespace {
const Json* present_member(const JsonReader& node, std::string_view key) {
    const Json& object = node.object().json();
    auto it = object.find(key);
    return it == object.end() || it->is_null() ? nullptr : &*it;
}
}  // namespace

std::string JsonReader::string_or(std::string_view key, std::string_view fallback) const {
    const Json* member = present_member(*this, key);
    if (!member) return std::string(fallback);
    if (!member->is_string())
        JsonReader(what_, *member, path_of(key), locator_).fail_expected("a string or null");
    return member->get_ref<const std::string&>();
}

std::optional<std::string> JsonReader::optional_string(std::string_view key) const {
    const Json* member = present_member(*this, key);
    if (!member) return std::nullopt;
    if (!member->is_string())
        JsonReader(what_, *member, path_of(key), locator_).fail_expected("a string or null");
    return member->get_ref<const std::string&>();
}

std::optional<std::int64_t> JsonReader::optional_integer(std::string_view key) const {
    const Json* member = present_member(*this, key);
    if (!member) return std::nullopt;
    if (member->is_number_unsigned()) {  // how a parse gives every integer from 0 up
        const auto u = member->get<std::uint64_t>();
        if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            return static_cast<std::int64_t>(u);
    } else if (member->is_number_integer()) {
        return member->get<std::int64_t>();
    }
    const JsonReader node(what_, *member, path_of(key), locator_);
    if (!member->is_number_integer()) node.fail_expected("an integer or null");
    return node.integer();
}

bool JsonReader::boolean_or(std::string_view key, bool fallback) const {
    const Json* member = present_member(*this, key);
    if (!member) return fallback;
    if (!member->is_boolean())
        JsonReader(what_, *member, path_of(key), locator_).fail_expected("a boolean");
    return member->get<bool>();
}

std::optional<Json> JsonReader::optional_object(std::string_view key) const {
    auto node = find(key);
    if (!node) return std::nullopt;
    if (!node->is_object()) node->fail_expected("an object or null");
    return node->json();
}

Json JsonReader::object_or_empty(std::string_view key) const {
    auto node = find(key);
    return node ? node->object().json() : Json::object();
}

std::vector<std::string> JsonReader::strings_or_empty(std::string_view key) const {
    auto node = find(key);
    return node ? node->strings() : std::vector<std::string>{};
}

}  // namespace cmfpipe
