// Jinja's builtin tests (`x is defined`, `n is divisibleby 3`, ...), with Python's type rules:
// bool is a number but not an integer; undefined is iterable and a sequence (it has len()).
#include "tests.hpp"

#include <unordered_map>

#include "evaluator.hpp"
#include "failure.hpp"
#include "filters.hpp"

namespace cmfpipe::jinja2 {
namespace {

const Value& need(const Args& a, const char* test) {
    if (a.positional.empty() && a.keyword.empty())
        throw Failure("TypeError", std::string("test '") + test + "' missing a required argument");
    return a.positional.empty() ? a.keyword[0].second : a.positional[0];
}

bool t_defined(Evaluator&, const Value& v, const Args&) {
    return !v.is_undefined();
}
bool t_undefined(Evaluator&, const Value& v, const Args&) {
    return v.is_undefined();
}
bool t_none(Evaluator&, const Value& v, const Args&) {
    return v.is_none();
}
bool t_boolean(Evaluator&, const Value& v, const Args&) {
    return v.is_bool();
}
bool t_false(Evaluator&, const Value& v, const Args&) {
    return v.is_bool() && !v.as_bool();
}
bool t_true(Evaluator&, const Value& v, const Args&) {
    return v.is_bool() && v.as_bool();
}
bool t_integer(Evaluator&, const Value& v, const Args&) {
    return v.is_int();
}
bool t_float(Evaluator&, const Value& v, const Args&) {
    return v.is_float();
}
bool t_number(Evaluator&, const Value& v, const Args&) {
    return v.is_number();
}
bool t_string(Evaluator&, const Value& v, const Args&) {
    return v.is_string();
}
bool t_mapping(Evaluator&, const Value& v, const Args&) {
    return v.is_dict();
}
bool t_iterable(Evaluator&, const Value& v, const Args&) {
    return v.is_string() || v.is_list() || v.is_dict() || v.is_undefined();
}
bool t_sequence(Evaluator&, const Value& v, const Args&) {
    if (v.is_list()) return v.list().flavor != List::Flavor::Generator;
    return v.is_string() || v.is_dict() || v.is_undefined();
}
bool t_callable(Evaluator&, const Value& v, const Args&) {
    return v.is_callable() || v.kind() == Kind::Loop || v.is_undefined();
}
bool t_escaped(Evaluator&, const Value& v, const Args&) {
    return v.is_markup();
}

std::int64_t int_of(Evaluator& ev, const Value& v) {
    if (v.is_undefined()) ev.raise_undefined(v);
    if (v.is_int() || v.is_bool()) return v.as_int();
    throw Failure("TypeError",
                  "unsupported operand type(s) for %: '" + type_name(v) + "' and 'int'");
}

bool t_odd(Evaluator& ev, const Value& v, const Args&) {
    if (v.is_float()) return std::fmod(v.as_float(), 2.0) != 0.0;
    return int_of(ev, v) % 2 != 0;
}
bool t_even(Evaluator& ev, const Value& v, const Args&) {
    if (v.is_float()) return std::fmod(v.as_float(), 2.0) == 0.0;
    return int_of(ev, v) % 2 == 0;
}
bool t_divisibleby(Evaluator& ev, const Value& v, const Args& a) {
    const Value& n = need(a, "divisibleby");
    if (n.is_float() || v.is_float()) {
        if (n.as_float() == 0.0) throw Failure("ZeroDivisionError", "float modulo");
        return std::fmod(v.as_float(), n.as_float()) == 0.0;
    }
    std::int64_t d = int_of(ev, n);
    if (d == 0) throw Failure("ZeroDivisionError", "integer division or modulo by zero");
    return int_of(ev, v) % d == 0;
}

bool t_eq(Evaluator&, const Value& v, const Args& a) {
    return equals(v, need(a, "eq"));
}
bool t_ne(Evaluator&, const Value& v, const Args& a) {
    return !equals(v, need(a, "ne"));
}
void ordered(Evaluator& ev, const Value& a, const Value& b) {
    if (a.is_undefined()) ev.raise_undefined(a);
    if (b.is_undefined()) ev.raise_undefined(b);
}
bool t_lt(Evaluator& ev, const Value& v, const Args& a) {
    const Value& o = need(a, "lt");
    ordered(ev, v, o);
    return less(v, o);
}
bool t_le(Evaluator& ev, const Value& v, const Args& a) {
    const Value& o = need(a, "le");
    ordered(ev, v, o);
    return !less(o, v);
}
bool t_gt(Evaluator& ev, const Value& v, const Args& a) {
    const Value& o = need(a, "gt");
    ordered(ev, v, o);
    return less(o, v);
}
bool t_ge(Evaluator& ev, const Value& v, const Args& a) {
    const Value& o = need(a, "ge");
    ordered(ev, v, o);
    return !less(v, o);
}

bool t_in(Evaluator& ev, const Value& v, const Args& a) {
    const Value& container = need(a, "in");
    if (container.is_string()) {
        if (!v.is_string())
            throw Failure("TypeError",
                          "'in <string>' requires string as left operand, not " + type_name(v));
        return container.str().find(v.str()) != std::string::npos;
    }
    if (container.is_dict()) return container.dict().find(v) != nullptr;
    // Held by name: a temporary in a range-for's expression dies before the loop.
    const auto sequence = ev.iterate(container);
    for (const auto& item : sequence->items)
        if (equals(item, v)) return true;
    return false;
}

bool t_sameas(Evaluator&, const Value& v, const Args& a) {
    const Value& o = need(a, "sameas");
    if (v.kind() != o.kind()) return false;
    switch (v.kind()) {
        case Kind::None:
        case Kind::Undefined:
            return true;
        case Kind::Bool:
            return v.as_bool() == o.as_bool();
        case Kind::Int:
            return v.as_int() == o.as_int() && v.as_int() >= -5 && v.as_int() <= 256;
        case Kind::Float:
            return false;
        default:
            return v.identity() == o.identity();
    }
}

bool t_lower(Evaluator&, const Value& v, const Args&) {
    std::string s = to_str(v);
    bool cased = false;
    for (char c : s) {
        if (c >= 'A' && c <= 'Z') return false;
        if (c >= 'a' && c <= 'z') cased = true;
    }
    return cased;
}
bool t_upper(Evaluator&, const Value& v, const Args&) {
    std::string s = to_str(v);
    bool cased = false;
    for (char c : s) {
        if (c >= 'a' && c <= 'z') return false;
        if (c >= 'A' && c <= 'Z') cased = true;
    }
    return cased;
}

bool t_filter(Evaluator& ev, const Value& v, const Args&) {
    return v.is_string() && find_filter(v.str(), ev.profile()) != nullptr;
}
bool t_test(Evaluator&, const Value& v, const Args&) {
    return v.is_string() && find_test(v.str()) != nullptr;
}

const std::unordered_map<std::string_view, TestFn>& table() {
    static const std::unordered_map<std::string_view, TestFn> t = {
        {"defined", t_defined},
        {"undefined", t_undefined},
        {"none", t_none},
        {"boolean", t_boolean},
        {"false", t_false},
        {"true", t_true},
        {"integer", t_integer},
        {"float", t_float},
        {"number", t_number},
        {"string", t_string},
        {"mapping", t_mapping},
        {"iterable", t_iterable},
        {"sequence", t_sequence},
        {"callable", t_callable},
        {"escaped", t_escaped},
        {"odd", t_odd},
        {"even", t_even},
        {"divisibleby", t_divisibleby},
        {"eq", t_eq},
        {"equalto", t_eq},
        {"==", t_eq},
        {"ne", t_ne},
        {"!=", t_ne},
        {"lt", t_lt},
        {"lessthan", t_lt},
        {"<", t_lt},
        {"le", t_le},
        {"<=", t_le},
        {"gt", t_gt},
        {"greaterthan", t_gt},
        {">", t_gt},
        {"ge", t_ge},
        {">=", t_ge},
        {"in", t_in},
        {"sameas", t_sameas},
        {"lower", t_lower},
        {"upper", t_upper},
        {"filter", t_filter},
        {"test", t_test},
    };
    return t;
}

}  // namespace

TestFn find_test(std::string_view name) {
    auto it = table().find(name);
    return it == table().end() ? nullptr : it->second;
}

}  // namespace cmfpipe::jinja2
