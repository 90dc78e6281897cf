#include "json_reader.hpp"

#include <limits>

#include "cmfpipe/errors.hpp"

namespace cmfpipe::cmf::detail {

void fail_at(const std::string& path, const std::string& what) {
    throw ValueError(path.empty() ? what : path + ": " + what);
}

std::string child_path(const std::string& path, std::string_view key) {
    if (path.empty()) return std::string(key);
    std::string out = path;
    out += '.';
    out += key;
    return out;
}

std::string index_path(const std::string& path, std::size_t index) {
    return path + "[" + std::to_string(index) + "]";
}

std::string json_quoted(std::string_view text) {
    return Json(std::string(text)).dump(-1, ' ', false, Json::error_handler_t::replace);
}

void fail_type(const std::string& path, const char* expected, const Json& got) {
    fail_at(path, std::string("expected ") + expected + ", got " + got.type_name());
}

ObjectReader::ObjectReader(const Json& json, std::string path,
                           std::initializer_list<std::string_view> allowed)
    : json_(json), path_(std::move(path)) {
    if (!json_.is_object()) fail_type(path_, "an object", json_);
    for (const auto& [key, value] : json_.items()) {
        bool known = false;
        for (auto name : allowed) known = known || name == key;
        if (!known) {
            std::string list;
            for (auto name : allowed) {
                if (!list.empty()) list += ", ";
                list += name;
            }
            fail_at(at(key), "unknown field (expected one of: " + list + ")");
        }
    }
}

const Json* ObjectReader::get(std::string_view key) const {
    auto it = json_.find(key);
    if (it == json_.end() || it->is_null()) return nullptr;
    return &*it;
}

std::string ObjectReader::required_string(std::string_view key) const {
    auto it = json_.find(key);
    if (it == json_.end()) fail_at(at(key), "missing required field");
    if (!it->is_string()) fail_type(at(key), "a string", *it);
    return it->get<std::string>();
}

std::optional<std::string> ObjectReader::optional_string(std::string_view key) const {
    const Json* value = get(key);
    if (!value) return std::nullopt;
    if (!value->is_string()) fail_type(at(key), "a string or null", *value);
    return value->get<std::string>();
}

namespace {
std::int64_t to_int(const Json& value, const std::string& path, const char* expected) {
    if (value.is_number_unsigned()) {
        const auto u = value.get<std::uint64_t>();
        if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            fail_at(path, "integer " + value.dump() + " is out of range");
        return static_cast<std::int64_t>(u);
    }
    if (value.is_number_integer()) return value.get<std::int64_t>();
    fail_type(path, expected, value);
}
}  // namespace

std::int64_t ObjectReader::required_int(std::string_view key) const {
    auto it = json_.find(key);
    if (it == json_.end()) fail_at(at(key), "missing required field");
    return to_int(*it, at(key), "an integer");
}

std::optional<std::int64_t> ObjectReader::optional_int(std::string_view key) const {
    const Json* value = get(key);
    if (!value) return std::nullopt;
    return to_int(*value, at(key), "an integer or null");
}

bool ObjectReader::bool_or(std::string_view key, bool fallback) const {
    auto it = json_.find(key);
    if (it == json_.end()) return fallback;
    if (!it->is_boolean()) fail_type(at(key), "a boolean", *it);
    return it->get<bool>();
}

Json ObjectReader::object_or_empty(std::string_view key) const {
    const Json* value = get(key);
    if (!value) return Json::object();
    if (!value->is_object()) fail_type(at(key), "an object", *value);
    return *value;
}

Json ObjectReader::any(std::string_view key) const {
    auto it = json_.find(key);
    return it == json_.end() ? Json(nullptr) : *it;
}

std::optional<Json> ObjectReader::optional_object(std::string_view key) const {
    const Json* value = get(key);
    if (!value) return std::nullopt;
    if (!value->is_object()) fail_type(at(key), "an object or null", *value);
    return *value;
}

std::optional<std::vector<std::string>> ObjectReader::optional_string_list(
    std::string_view key) const {
    const Json* value = get(key);
    if (!value) return std::nullopt;
    if (!value->is_array()) fail_type(at(key), "an array of strings", *value);
    std::vector<std::string> out;
    out.reserve(value->size());
    for (std::size_t i = 0; i < value->size(); ++i) {
        const Json& item = (*value)[i];
        if (!item.is_string()) fail_type(index_path(at(key), i), "a string", item);
        out.push_back(item.get<std::string>());
    }
    return out;
}

std::vector<std::string> ObjectReader::string_list(std::string_view key) const {
    auto list = optional_string_list(key);
    return list ? std::move(*list) : std::vector<std::string>{};
}

StringSet ObjectReader::string_set(std::string_view key) const {
    auto list = string_list(key);
    return StringSet(std::make_move_iterator(list.begin()), std::make_move_iterator(list.end()));
}

OrderedMap<std::string> ObjectReader::string_map(std::string_view key) const {
    OrderedMap<std::string> out;
    const Json* value = get(key);
    if (!value) return out;
    if (!value->is_object()) fail_type(at(key), "an object of strings", *value);
    for (const auto& [name, item] : value->items()) {
        if (!item.is_string()) fail_type(child_path(at(key), name), "a string", item);
        out.set(name, item.get<std::string>());
    }
    return out;
}

}  // namespace cmfpipe::cmf::detail
