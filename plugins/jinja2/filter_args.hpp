#pragma once
// What the builtin filters share: reading their arguments the way Jinja's signatures do, and the
// per-group registration each filter file provides to the name table in filters.cpp.
#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "evaluator.hpp"
#include "failure.hpp"
#include "text.hpp"

namespace cmfpipe::jinja2 {

using FilterTable = std::unordered_map<std::string_view, FilterFn>;

// Each filter file adds its filters' names to the table.
void add_string_filters(FilterTable& table);
void add_number_filters(FilterTable& table);
void add_sequence_filters(FilterTable& table);
void add_serialising_filters(FilterTable& table);
// tojson is not in the table: chat templates get transformers' variant, prompty Jinja's own.
FilterFn tojson_filter(Profile profile);

inline const Value* arg(const Args& a, std::size_t i, std::string_view name) {
    return a.get(i, name);
}

inline bool flag(const Args& a, std::size_t i, std::string_view name, bool def = false) {
    const Value* v = arg(a, i, name);
    return v ? truthy(*v) : def;
}

inline std::int64_t int_param(const Args& a, std::size_t i, std::string_view name,
                              std::int64_t def) {
    const Value* v = arg(a, i, name);
    if (!v || v->is_none()) return def;
    if (v->is_int() || v->is_bool()) return v->as_int();
    if (v->is_float()) return static_cast<std::int64_t>(v->as_float());
    throw Failure("TypeError",
                  "'" + type_name(*v) + "' object cannot be interpreted as an integer");
}

inline std::string soft_str(const Value& v) {
    return to_str(v);
}

inline Value str_result(Evaluator& ev, std::string s) {
    return ev.make_string(std::move(s));
}

inline Value generator(Values items) {
    return Value::list(make_list(std::move(items), List::Flavor::Generator));
}

// make_attrgetter: "a.b.0" -> getitem chain, digit parts as integers.
inline Values attribute_parts(const Value& attribute) {
    Values parts;
    if (attribute.is_none() || attribute.is_undefined()) return parts;
    if (!attribute.is_string()) {
        parts.push_back(attribute);
        return parts;
    }
    auto digits = [](std::string_view p) {
        return !p.empty() &&
               std::all_of(p.begin(), p.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    const std::string& path = attribute.str();
    if (!attribute.is_markup() && path.find('.') == std::string::npos && !digits(path)) {
        parts.push_back(attribute);  // one key, the usual 'role': no split, no copy
        return parts;
    }
    for (const auto& p : split_sep(path, ".", -1, false))
        parts.push_back(digits(p) ? Value::integer(std::stoll(p)) : Value::string(p));
    return parts;
}

inline Value get_path(Evaluator& ev, Value item, const Values& parts, const Value* def = nullptr) {
    for (const auto& p : parts) {
        item = ev.getitem(item, p);
        if (def && !def->is_none() && item.is_undefined()) item = *def;
    }
    return item;
}

inline Value ignore_case(const Value& v, bool case_sensitive) {
    if (!case_sensitive && v.is_string()) return Value::string(ascii_lower(v.str()));
    return v;
}

inline Ref<List> seq(Evaluator& ev, const Value& v) {
    return ev.iterate(v);
}

}  // namespace cmfpipe::jinja2
