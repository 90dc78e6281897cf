// Python's str, dict and list methods as templates call them (s.strip(), d.items(), ...).
#include "methods.hpp"

#include <algorithm>
#include <cstring>

#include "evaluator.hpp"
#include "failure.hpp"
#include "text.hpp"

namespace cmfpipe::jinja2 {
namespace {

struct BoundMethod final : Callable {
    Value self;
    std::string method;
    Value call(Evaluator& ev, Args& args) override { return call_method(ev, self, method, args); }
    std::string name() const override { return method; }
};

// string_views, not C strings: membership is a length check before any byte is compared.
constexpr std::string_view kStrMethods[] = {
    "strip",       "lstrip",       "rstrip",       "split",      "rsplit",  "splitlines",
    "startswith",  "endswith",     "replace",      "upper",      "lower",   "title",
    "capitalize",  "swapcase",     "casefold",     "find",       "rfind",   "index",
    "rindex",      "count",        "format",       "join",       "isdigit", "isalpha",
    "isalnum",     "isspace",      "isupper",      "islower",    "istitle", "isnumeric",
    "isdecimal",   "center",       "ljust",        "rjust",      "zfill",   "partition",
    "rpartition",  "removeprefix", "removesuffix", "expandtabs", "encode",  "isidentifier",
    "isprintable", "isascii",      "format_map"};
constexpr std::string_view kDictMethods[] = {"items", "keys", "values", "get", "copy"};
constexpr std::string_view kDictMutators[] = {"pop", "popitem", "setdefault", "update", "clear"};
constexpr std::string_view kListMethods[] = {"index", "count", "copy"};
constexpr std::string_view kListMutators[] = {"append", "extend",  "insert", "pop",
                                              "remove", "reverse", "sort",   "clear"};

template <std::size_t N>
bool in(const std::string_view (&table)[N], std::string_view name) {
    for (std::string_view m : table)
        if (name == m) return true;
    return false;
}

const std::string& str_arg(const Args& a, std::size_t i, const char* method) {
    if (i >= a.positional.size() || !a.positional[i].is_string())
        throw Failure("TypeError", std::string(method) + "() argument must be str, not " +
                                       (i < a.positional.size() ? type_name(a.positional[i])
                                                                : std::string("nothing")));
    return a.positional[i].str();
}

std::int64_t int_arg(const Args& a, std::size_t i, std::int64_t def) {
    if (i >= a.positional.size() || a.positional[i].is_none()) return def;
    return index_value(a.positional[i]);
}

// strip family: chars=None strips whitespace.
Value strip(const Value& self, const Args& a, bool left, bool right) {
    const std::string& s = self.str();
    if (!a.positional.empty() && !a.positional[0].is_none()) {
        const std::string& chars = str_arg(a, 0, "strip");
        return Value::string(strip_chars(s, chars, left, right));
    }
    if (!self.is_markup()) return strip_space_of(self, left, right);
    return Value::string(std::string(strip_space(s, left, right)));
}

Value split(Evaluator& ev, const Value& self, const Args& a, bool from_right) {
    const std::string& s = self.str();
    const Value* sepv = a.get(0, "sep");
    const Value* maxv = a.get(1, "maxsplit");
    std::int64_t maxsplit = maxv && !maxv->is_none() ? maxv->as_int() : -1;
    std::vector<std::string> parts;
    if (!sepv || sepv->is_none()) {
        parts = split_whitespace(s, maxsplit, from_right);
    } else {
        if (!sepv->is_string())
            throw Failure("TypeError", "must be str or None, not " + type_name(*sepv));
        if (sepv->str().empty()) throw Failure("ValueError", "empty separator");
        parts = split_sep(s, sepv->str(), maxsplit, from_right);
    }
    ev.check_list(parts.size());
    auto l = make_list();
    l->items.reserve(parts.size());
    for (auto& p : parts) l->items.push_back(Value::string(std::move(p)));
    return Value::list(std::move(l));
}

bool affix_match(const Value& self, const Args& a, bool prefix) {
    const std::string& s = self.str();
    if (a.positional.empty())
        throw Failure("TypeError", std::string(prefix ? "startswith" : "endswith") +
                                       "() takes at least 1 argument (0 given)");
    std::string_view view = s;
    // optional start/end (byte offsets; fine for ASCII which is all templates use)
    if (a.positional.size() > 1 && !a.positional[1].is_none()) {
        std::int64_t st = a.positional[1].as_int();
        if (st < 0) st = std::max<std::int64_t>(0, st + static_cast<std::int64_t>(s.size()));
        view = st >= static_cast<std::int64_t>(s.size())
                   ? std::string_view()
                   : view.substr(static_cast<std::size_t>(st));
    }
    auto test = [&](const Value& v) {
        if (!v.is_string())
            throw Failure("TypeError", std::string(prefix ? "startswith" : "endswith") +
                                           " first arg must be str or a tuple of str, not " +
                                           type_name(v));
        const std::string& x = v.str();
        if (x.size() > view.size()) return false;
        return prefix ? view.compare(0, x.size(), x) == 0
                      : view.compare(view.size() - x.size(), x.size(), x) == 0;
    };
    const Value& arg = a.positional[0];
    if (arg.is_list() && arg.list().flavor == List::Flavor::Tuple) {
        for (const auto& v : arg.list().items)
            if (test(v)) return true;
        return false;
    }
    return test(arg);
}

Value replace(Evaluator& ev, const Value& self, Args& a) {
    const std::string& s = self.str();
    const std::string& old = str_arg(a, 0, "replace");
    const std::string& neu = str_arg(a, 1, "replace");
    std::int64_t count = int_arg(a, 2, -1);
    if (const Value* c = a.kw("count")) count = c->as_int();
    // nothing to replace: the string itself, as Python gives it back
    if (!self.is_markup() && !old.empty() && s.find(old) == std::string::npos) return self;
    std::string r = replace_all(s, old, neu, count, ev.settings().limits.max_string_bytes);
    return ev.make_string(std::move(r));
}

Value join(Evaluator& ev, const std::string& s, Args& a) {
    if (a.positional.empty())
        throw Failure("TypeError", "join() takes exactly one argument (0 given)");
    auto items = ev.iterate(a.positional[0]);
    std::string r;
    for (std::size_t i = 0; i < items->items.size(); ++i) {
        const Value& v = items->items[i];
        if (!v.is_string())
            throw Failure("TypeError", "sequence item " + std::to_string(i) +
                                           ": expected str instance, " + type_name(v) + " found");
        if (i) r += s;
        r += v.str();
        ev.check_string(r.size());
    }
    return Value::string(std::move(r));
}

Value str_method(Evaluator& ev, const Value& self, std::string_view m, MethodId id, Args& a) {
    const std::string& s = self.str();
    switch (id) {
        case MethodId::Strip:
            return strip(self, a, true, true);
        case MethodId::Lstrip:
            return strip(self, a, true, false);
        case MethodId::Rstrip:
            return strip(self, a, false, true);
        case MethodId::Split:
            return split(ev, self, a, false);
        case MethodId::Rsplit:
            return split(ev, self, a, true);
        case MethodId::Startswith:
            return Value::boolean(affix_match(self, a, true));
        case MethodId::Endswith:
            return Value::boolean(affix_match(self, a, false));
        case MethodId::Replace:
            return replace(ev, self, a);
        case MethodId::Upper:
            return Value::string(ascii_upper(s));
        case MethodId::Lower:
            return Value::string(ascii_lower(s));
        case MethodId::Join:
            return join(ev, s, a);
        case MethodId::Format:
            return ev.make_string(python_format(ev, s, a));
        default:
            break;
    }
    if (m == "splitlines") {
        const Value* keep = a.get(0, "keepends");
        auto l = make_list();
        for (auto& line : split_lines(s, keep && truthy(*keep)))
            l->items.push_back(Value::string(std::move(line)));
        return Value::list(std::move(l));
    }
    if (m == "casefold") return Value::string(ascii_lower(s));
    if (m == "title") return Value::string(python_title(s));
    if (m == "capitalize") return Value::string(capitalize(s));
    if (m == "swapcase") {
        std::string r = s;
        for (char& c : r) {
            if (c >= 'a' && c <= 'z')
                c = static_cast<char>(c - 32);
            else if (c >= 'A' && c <= 'Z')
                c = static_cast<char>(c + 32);
        }
        return Value::string(std::move(r));
    }
    if (m == "find" || m == "rfind" || m == "index" || m == "rindex") {
        const std::string& x = str_arg(a, 0, std::string(m).c_str());
        bool right = m[0] == 'r';
        std::size_t pos = right ? s.rfind(x) : s.find(x);
        if (pos == std::string::npos) {
            if (m == "index" || m == "rindex") throw Failure("ValueError", "substring not found");
            return Value::integer(-1);
        }
        return Value::integer(
            static_cast<std::int64_t>(utf8_length(std::string_view(s).substr(0, pos))));
    }
    if (m == "count") {
        const std::string& x = str_arg(a, 0, "count");
        if (x.empty()) return Value::integer(static_cast<std::int64_t>(utf8_length(s) + 1));
        std::int64_t n = 0;
        for (std::size_t p = s.find(x); p != std::string::npos; p = s.find(x, p + x.size())) ++n;
        return Value::integer(n);
    }
    if (m == "format_map") {
        Args named;
        if (!a.positional.empty() && a.positional[0].is_dict())
            for (const auto& [k, v] : a.positional[0].dict().items)
                named.keyword.emplace_back(name_value(k), v);
        return ev.make_string(python_format(ev, s, named));
    }
    auto all_of = [&](auto pred) {
        if (s.empty()) return Value::boolean(false);
        return Value::boolean(std::all_of(
            s.begin(), s.end(), [&](char c) { return pred(static_cast<unsigned char>(c)); }));
    };
    if (m == "isdigit" || m == "isnumeric" || m == "isdecimal")
        return all_of([](unsigned char c) { return c >= '0' && c <= '9'; });
    if (m == "isalpha")
        return all_of([](unsigned char c) { return std::isalpha(c) != 0 || c >= 0x80; });
    if (m == "isalnum")
        return all_of([](unsigned char c) { return std::isalnum(c) != 0 || c >= 0x80; });
    if (m == "isspace") return all_of([](unsigned char c) { return std::isspace(c) != 0; });
    if (m == "isascii") return Value::boolean(is_ascii(s));
    if (m == "isprintable")
        return Value::boolean(std::all_of(s.begin(), s.end(), [](char c) {
            return static_cast<unsigned char>(c) >= 0x20 && c != 0x7f;
        }));
    if (m == "isidentifier") {
        bool ok = !s.empty() && (std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_') &&
                  std::all_of(s.begin(), s.end(), [](char c) {
                      return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                  });
        return Value::boolean(ok);
    }
    if (m == "isupper" || m == "islower") {
        bool cased = false, ok = true;
        for (char c : s) {
            if (std::isupper(static_cast<unsigned char>(c))) {
                cased = true;
                if (m == "islower") ok = false;
            }
            if (std::islower(static_cast<unsigned char>(c))) {
                cased = true;
                if (m == "isupper") ok = false;
            }
        }
        return Value::boolean(cased && ok);
    }
    if (m == "istitle")
        return Value::boolean(!s.empty() && python_title(s) == s && s != ascii_lower(s));
    if (m == "center" || m == "ljust" || m == "rjust") {
        std::int64_t width = int_arg(a, 0, 0);
        std::string fill = a.positional.size() > 1 ? str_arg(a, 1, std::string(m).c_str()) : " ";
        if (width > 0) ev.check_string(static_cast<std::size_t>(width) * fill.size());
        return Value::string(pad(s, width, fill, m == "center" ? '^' : m == "ljust" ? '<' : '>'));
    }
    if (m == "zfill") {
        std::int64_t width = int_arg(a, 0, 0);
        if (width > 0) ev.check_string(static_cast<std::size_t>(width));
        std::string r = s;
        std::size_t len = utf8_length(s);
        if (width > static_cast<std::int64_t>(len)) {
            std::size_t at = (!r.empty() && (r[0] == '-' || r[0] == '+')) ? 1 : 0;
            r.insert(at, static_cast<std::size_t>(width) - len, '0');
        }
        return Value::string(std::move(r));
    }
    if (m == "partition" || m == "rpartition") {
        const std::string& sep = str_arg(a, 0, "partition");
        if (sep.empty()) throw Failure("ValueError", "empty separator");
        std::size_t p = m == "partition" ? s.find(sep) : s.rfind(sep);
        auto t = make_list({}, List::Flavor::Tuple);
        if (p == std::string::npos) {
            if (m == "partition")
                t->items = {Value::string(s), Value::string(""), Value::string("")};
            else
                t->items = {Value::string(""), Value::string(""), Value::string(s)};
        } else {
            t->items = {Value::string(s.substr(0, p)), Value::string(sep),
                        Value::string(s.substr(p + sep.size()))};
        }
        return Value::list(std::move(t));
    }
    if (m == "removeprefix") {
        const std::string& x = str_arg(a, 0, "removeprefix");
        return Value::string(s.compare(0, x.size(), x) == 0 ? s.substr(x.size()) : s);
    }
    if (m == "removesuffix") {
        const std::string& x = str_arg(a, 0, "removesuffix");
        return Value::string(s.size() >= x.size() &&
                                     s.compare(s.size() - x.size(), x.size(), x) == 0 && !x.empty()
                                 ? s.substr(0, s.size() - x.size())
                                 : s);
    }
    if (m == "expandtabs") {
        std::int64_t ts = int_arg(a, 0, 8);
        std::string r;
        std::int64_t col = 0;
        for (char c : s) {
            if (c == '\t') {
                std::int64_t n = ts > 0 ? ts - (col % ts) : 0;
                r.append(static_cast<std::size_t>(n), ' ');
                col += n;
            } else {
                r += c;
                col = (c == '\n' || c == '\r') ? 0 : col + 1;
            }
        }
        return ev.make_string(std::move(r));
    }
    if (m == "encode") throw Failure("SecurityError", "str.encode is not available in templates");
    throw Failure("UndefinedError", "'str object' has no attribute '" + std::string(m) + "'");
}

Value dict_method(Evaluator& ev, const Value& self, std::string_view m, MethodId id, Args& a) {
    Dict& d = self.dict();
    if (id == MethodId::Get) {
        if (a.positional.empty())
            throw Failure("TypeError", "get expected at least 1 argument, got 0");
        if (const Value* v = d.find(a.positional[0])) return *v;
        return a.positional.size() > 1 ? a.positional[1] : Value::none();
    }
    if (id == MethodId::Items) {
        auto l = make_list();
        l->items.reserve(d.items.size());
        for (const auto& [k, v] : d.items)
            l->items.push_back(Value::list(make_list({k, v}, List::Flavor::Tuple)));
        return Value::list(std::move(l));
    }
    if (id == MethodId::Keys || id == MethodId::Values) {
        auto l = make_list();
        l->items.reserve(d.items.size());
        for (const auto& [k, v] : d.items) l->items.push_back(id == MethodId::Keys ? k : v);
        return Value::list(std::move(l));
    }
    if (m == "copy") {
        auto c = make_ref<Dict>(d);
        return Value::dict(std::move(c));
    }
    if (m == "pop") {
        if (a.positional.empty())
            throw Failure("TypeError", "pop expected at least 1 argument, got 0");
        if (const Value* v = d.find(a.positional[0])) {
            Value r = *v;
            d.erase(a.positional[0]);
            return r;
        }
        if (a.positional.size() > 1) return a.positional[1];
        std::string r;
        append_repr(r, a.positional[0]);
        throw Failure("KeyError", r);
    }
    if (m == "popitem") {
        if (d.items.empty()) throw Failure("KeyError", "'popitem(): dictionary is empty'");
        auto kv = d.items.back();
        d.items.pop_back();
        return Value::list(make_list({kv.first, kv.second}, List::Flavor::Tuple));
    }
    if (m == "setdefault") {
        if (a.positional.empty())
            throw Failure("TypeError", "setdefault expected at least 1 argument, got 0");
        if (const Value* v = d.find(a.positional[0])) return *v;
        Value def = a.positional.size() > 1 ? a.positional[1] : Value::none();
        d.set(a.positional[0], def);
        return def;
    }
    if (m == "update") {
        for (const auto& p : a.positional) {
            if (!p.is_dict())
                throw Failure("TypeError", "dict.update() argument must be a mapping");
            for (const auto& [k, v] : p.dict().items) d.set(k, v);
        }
        for (const auto& [k, v] : a.keyword) d.set(k, v);
        ev.check_list(d.items.size());
        return Value::none();
    }
    if (m == "clear") {
        d.items.clear();
        return Value::none();
    }
    throw Failure("UndefinedError", "'dict object' has no attribute '" + std::string(m) + "'");
}

Value list_method(Evaluator& ev, const Value& self, std::string_view m, Args& a) {
    List& l = self.list();
    if (m == "index" || m == "count") {
        if (a.positional.empty())
            throw Failure("TypeError", std::string(m) + "() takes at least 1 argument");
        std::int64_t n = 0;
        for (std::size_t i = 0; i < l.items.size(); ++i) {
            if (equals(l.items[i], a.positional[0])) {
                if (m == "index") return Value::integer(static_cast<std::int64_t>(i));
                ++n;
            }
        }
        if (m == "index") {
            std::string r;
            append_repr(r, a.positional[0]);
            throw Failure("ValueError", r + " is not in list");
        }
        return Value::integer(n);
    }
    if (m == "copy") return Value::list(make_list(l.items));
    if (m == "append") {
        if (a.positional.size() != 1)
            throw Failure("TypeError", "list.append() takes exactly one argument");
        ev.check_list(l.items.size() + 1);
        l.items.push_back(a.positional[0]);
        return Value::none();
    }
    if (m == "extend") {
        if (a.positional.size() != 1)
            throw Failure("TypeError", "list.extend() takes exactly one argument");
        auto more = ev.iterate(a.positional[0]);
        ev.check_list(l.items.size() + more->items.size());
        Values copy = more->items;
        l.items.insert(l.items.end(), copy.begin(), copy.end());
        return Value::none();
    }
    if (m == "insert") {
        if (a.positional.size() != 2) throw Failure("TypeError", "insert expected 2 arguments");
        std::int64_t i = int_arg(a, 0, 0), n = static_cast<std::int64_t>(l.items.size());
        if (i < 0) i = std::max<std::int64_t>(0, i + n);
        i = std::min(i, n);
        ev.check_list(l.items.size() + 1);
        l.items.insert(l.items.begin() + i, a.positional[1]);
        return Value::none();
    }
    if (m == "pop") {
        if (l.items.empty()) throw Failure("IndexError", "pop from empty list");
        std::int64_t n = static_cast<std::int64_t>(l.items.size());
        std::int64_t i = int_arg(a, 0, -1);
        if (i < 0) i += n;
        if (i < 0 || i >= n) throw Failure("IndexError", "pop index out of range");
        Value r = l.items[static_cast<std::size_t>(i)];
        l.items.erase(l.items.begin() + i);
        return r;
    }
    if (m == "remove") {
        for (auto it = l.items.begin(); it != l.items.end(); ++it) {
            if (!a.positional.empty() && equals(*it, a.positional[0])) {
                l.items.erase(it);
                return Value::none();
            }
        }
        throw Failure("ValueError", "list.remove(x): x not in list");
    }
    if (m == "reverse") {
        std::reverse(l.items.begin(), l.items.end());
        return Value::none();
    }
    if (m == "sort") {
        const Value* rev = a.kw("reverse");
        std::stable_sort(l.items.begin(), l.items.end(),
                         [](const Value& x, const Value& y) { return less(x, y); });
        if (rev && truthy(*rev)) std::reverse(l.items.begin(), l.items.end());
        return Value::none();
    }
    if (m == "clear") {
        l.items.clear();
        return Value::none();
    }
    throw Failure("UndefinedError", "'list object' has no attribute '" + std::string(m) + "'");
}

}  // namespace

std::uint8_t method_set(std::string_view name) {
    std::uint8_t set = 0;
    if (in(kStrMethods, name)) set |= kStrMethod;
    if (in(kDictMethods, name)) set |= kDictMethod;
    if (in(kDictMutators, name)) set |= kDictMutator;
    if (in(kListMethods, name)) set |= kListMethod;
    if (in(kListMutators, name)) set |= kListMutator;
    return set;
}

MethodKind method_kind(const Value& obj, std::string_view name, bool immutable) {
    return method_kind(obj, name, method_set(name), immutable);
}

MethodKind method_kind(const Value& obj, std::string_view name, std::uint8_t set, bool immutable) {
    if (set == 0) return MethodKind::None;
    switch (obj.kind()) {
        case Kind::String:
            return set & kStrMethod ? MethodKind::Safe : MethodKind::None;
        case Kind::Dict:
            if (set & kDictMethod) return MethodKind::Safe;
            if (set & kDictMutator) return immutable ? MethodKind::Unsafe : MethodKind::Safe;
            return MethodKind::None;
        case Kind::List: {
            bool tuple = obj.list().flavor != List::Flavor::List;
            if ((set & kListMethod) && !(tuple && name == "copy")) return MethodKind::Safe;
            if (!tuple && (set & kListMutator))
                return immutable ? MethodKind::Unsafe : MethodKind::Safe;
            return MethodKind::None;
        }
        default:
            return MethodKind::None;
    }
}

MethodId method_id(std::string_view name) {
    static constexpr std::pair<std::string_view, MethodId> kIds[] = {
        {"strip", MethodId::Strip},       {"lstrip", MethodId::Lstrip},
        {"rstrip", MethodId::Rstrip},     {"split", MethodId::Split},
        {"rsplit", MethodId::Rsplit},     {"startswith", MethodId::Startswith},
        {"endswith", MethodId::Endswith}, {"replace", MethodId::Replace},
        {"upper", MethodId::Upper},       {"lower", MethodId::Lower},
        {"join", MethodId::Join},         {"format", MethodId::Format},
        {"get", MethodId::Get},           {"items", MethodId::Items},
        {"keys", MethodId::Keys},         {"values", MethodId::Values}};
    for (const auto& [n, id] : kIds)
        if (n == name) return id;
    return MethodId::Other;
}

Value call_method(Evaluator& ev, const Value& obj, std::string_view name, Args& args) {
    return call_method(ev, obj, name, method_id(name), args);
}

Value call_method(Evaluator& ev, const Value& obj, std::string_view name, MethodId id, Args& args) {
    switch (obj.kind()) {
        case Kind::String:
            return str_method(ev, obj, name, id, args);
        case Kind::Dict:
            return dict_method(ev, obj, name, id, args);
        case Kind::List:
            return list_method(ev, obj, name, args);
        default:
            throw Failure("TypeError", "'" + type_name(obj) + "' object has no method '" +
                                           std::string(name) + "'");
    }
}

Value bound_method(const Value& obj, std::string_view name) {
    auto m = make_ref<BoundMethod>();
    m->self = obj;
    m->method = std::string(name);
    return Value::callable(std::move(m));
}

}  // namespace cmfpipe::jinja2
