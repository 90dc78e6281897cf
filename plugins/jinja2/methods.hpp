#pragma once
// Python methods templates call on values: str (strip, split, startswith, format, ...),
// dict (items, keys, values, get) and list (index, count). The mutating ones (list.append,
// dict.update, ...) exist in the prompty profile; in the chat-template profile they are what
// transformers' ImmutableSandboxedEnvironment makes them, unsafe, unless the render's
// `mutable_containers` option allows them (Evaluator::containers_immutable).
#include <cstdint>
#include <string_view>

#include "template.hpp"
#include "value.hpp"

namespace cmfpipe::jinja2 {

enum class MethodKind { None, Safe, Unsafe };

// The method tables a name is in, as bits: resolved once per `obj.name` at compile time
// (GetAttrExpr::methods), so looking up an attribute that is no method's name (message.role)
// compares no strings.
enum : std::uint8_t {
    kStrMethod = 1,
    kDictMethod = 2,
    kDictMutator = 4,
    kListMethod = 8,
    kListMutator = 16
};
std::uint8_t method_set(std::string_view name);

MethodKind method_kind(const Value& obj, std::string_view name, bool containers_immutable);
// The same with the name's method_set already known.
MethodKind method_kind(const Value& obj, std::string_view name, std::uint8_t set,
                       bool containers_immutable);
Value call_method(Evaluator& ev, const Value& obj, std::string_view name, Args& args);
// The same with the name's method_id already known.
Value call_method(Evaluator& ev, const Value& obj, std::string_view name, MethodId id, Args& args);
// obj.name as a callable value (`''.strip is callable`, `obj.keys is defined`).
Value bound_method(const Value& obj, std::string_view name);

// Python's str.format (auto/explicit/named fields, format specs) and printf-style `%`.
std::string python_format(Evaluator& ev, std::string_view fmt, const Args& args);
std::string percent_format(Evaluator& ev, std::string_view fmt, const Value& args);

}  // namespace cmfpipe::jinja2
