// Python semantics of values: truthiness, equality, ordering, str() and repr().
#include "value.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "failure.hpp"
#include "text.hpp"

namespace cmfpipe::jinja2 {

void Value::destroy() {
    switch (kind_) {
        case Kind::String:
            delete static_cast<Text*>(u_.obj);
            return;
        case Kind::List:
            delete static_cast<List*>(u_.obj);
            return;
        case Kind::Dict:
            delete static_cast<Dict*>(u_.obj);
            return;
        case Kind::Callable:
            delete static_cast<Callable*>(u_.obj);  // virtual: the macro, method or builtin
            return;
        case Kind::Namespace:
            delete static_cast<Namespace*>(u_.obj);
            return;
        case Kind::Loop:
            delete static_cast<LoopState*>(u_.obj);
            return;
        case Kind::Undefined:
            delete static_cast<UndefinedInfo*>(u_.obj);
            return;
        default:
            return;  // scalars own nothing
    }
}

Value Value::undefined(UndefinedReason reason, std::string name, std::string obj_type) {
    auto info = make_ref<UndefinedInfo>();
    info->reason = reason;
    info->name = std::move(name);
    info->obj_type = std::move(obj_type);
    return undefined(std::move(info));
}

Ref<List> make_list(Values items, List::Flavor flavor) {
    auto l = make_ref<List>();
    l->items = std::move(items);
    l->flavor = flavor;
    return l;
}

// ----- containers -----

namespace {
// Frees nested containers iteratively: while one container is being destroyed, the children of
// any container that dies meanwhile are queued here instead of being destroyed recursively.
thread_local Values* g_pending = nullptr;

bool nests(const Value& v) {
    return v.kind() == Kind::List || v.kind() == Kind::Dict || v.kind() == Kind::Namespace;
}

// How many containers are being freed inside one another, recursively, on this thread.
thread_local int g_free_depth = 0;
constexpr int kRecursiveFreeDepth = 64;

// Only containers can nest deeply; scalars and strings are freed in place as usual. The first
// levels free their children recursively (no queue to allocate for the usual shallow value);
// deeper, children are queued.
template <class Range, class Get>
void release(Range& range, Get get) {
    if (g_pending) {
        for (auto& e : range)
            if (nests(get(e))) g_pending->push_back(std::move(get(e)));
        return;
    }
    if (g_free_depth < kRecursiveFreeDepth) {
        ++g_free_depth;
        for (auto& e : range)
            if (nests(get(e))) Value dying = std::move(get(e));  // freed here, one level deeper
        --g_free_depth;
        return;
    }
    bool any = false;
    for (auto& e : range) any = any || nests(get(e));
    if (!any) return;
    Values queue;
    g_pending = &queue;
    for (auto& e : range)
        if (nests(get(e))) queue.push_back(std::move(get(e)));
    while (!queue.empty()) {
        Value v = std::move(queue.back());
        queue.pop_back();
    }  // each v dies here; its container's destructor appends its own containers to the queue
    g_pending = nullptr;
}

thread_local int g_depth = 0;
// One level deeper into a nested value (comparison, hashing, repr recurse through containers).
struct ValueDepth : DepthGuard {
    ValueDepth() : DepthGuard(g_depth, kMaxValueDepth, "value nested", " levels") {}
};
}  // namespace

List::~List() {
    release(items, [](Value& v) -> Value& { return v; });
}

Dict::~Dict() {
    release(items, [](std::pair<Value, Value>& kv) -> Value& { return kv.second; });
}

Namespace::~Namespace() {
    release(attrs, [](std::pair<Value, Value>& kv) -> Value& { return kv.second; });
}

const Value* Dict::find(const Value& key) const {
    if (key.is_string()) return find(std::string_view(key.str()));
    for (const auto& [k, v] : items)
        if (equals(k, key)) return &v;
    return nullptr;
}

const Value* Dict::find(std::string_view key) const {
    for (const auto& [k, v] : items)
        if (k.is_string() && same_text(k.str(), key)) return &v;
    return nullptr;
}

void Dict::set(Value key, Value value) {
    for (auto& [k, v] : items) {
        if (equals(k, key)) {
            v = std::move(value);  // Python keeps the first key object, replaces the value
            return;
        }
    }
    items.emplace_back(std::move(key), std::move(value));
}

bool Dict::erase(const Value& key) {
    for (auto it = items.begin(); it != items.end(); ++it) {
        if (equals(it->first, key)) {
            items.erase(it);
            return true;
        }
    }
    return false;
}

const Value* Namespace::find(std::string_view name) const {
    for (const auto& [k, v] : attrs)
        if (same_text(k.str(), name)) return &v;
    return nullptr;
}

void Namespace::set(const Value& name, Value value) {
    for (auto& [k, v] : attrs) {
        if (same_text(k.str(), name.str())) {
            v = std::move(value);
            return;
        }
    }
    attrs.emplace_back(name, std::move(value));
}

const Value* Args::kw(std::string_view name) const {
    for (const auto& [k, v] : keyword)
        if (same_text(k.str(), name)) return &v;
    return nullptr;
}

const Value* Args::get(std::size_t index, std::string_view name) const {
    if (index < positional.size()) return &positional[index];
    return kw(name);
}

// ----- truthiness, equality, ordering -----

bool truthy(const Value& v) {
    switch (v.kind()) {
        case Kind::Undefined:
        case Kind::None:
            return false;
        case Kind::Bool:
            return v.as_bool();
        case Kind::Int:
            return v.as_int() != 0;
        case Kind::Float:
            return v.as_float() != 0.0;
        case Kind::String:
            return !v.str().empty();
        case Kind::List:
            return v.list().flavor == List::Flavor::Generator || !v.list().items.empty();
        case Kind::Dict:
            return !v.dict().items.empty();
        default:
            return true;
    }
}

bool equals_other(const Value& a, const Value& b) {
    if (a.kind() == Kind::List || a.kind() == Kind::Dict) {
        ValueDepth guard;
        return equals_impl(a, b);
    }
    return equals_impl(a, b);
}

bool equals_impl(const Value& a, const Value& b) {
    if (a.is_number() && b.is_number()) {
        if (a.is_float() || b.is_float()) return a.as_float() == b.as_float();
        return a.as_int() == b.as_int();
    }
    if (a.kind() != b.kind()) return false;
    switch (a.kind()) {
        case Kind::Undefined:
        case Kind::None:
            return true;
        case Kind::String:
            return a.identity() == b.identity() || same_text(a.str(), b.str());
        case Kind::List: {
            const auto& x = a.list();
            const auto& y = b.list();
            if (&x == &y) return true;
            if ((x.flavor == List::Flavor::Tuple) != (y.flavor == List::Flavor::Tuple))
                return false;
            if (x.flavor == List::Flavor::Generator || y.flavor == List::Flavor::Generator)
                return false;
            if (x.items.size() != y.items.size()) return false;
            for (std::size_t i = 0; i < x.items.size(); ++i)
                if (!equals(x.items[i], y.items[i])) return false;
            return true;
        }
        case Kind::Dict: {
            const auto& x = a.dict();
            const auto& y = b.dict();
            if (x.items.size() != y.items.size()) return false;
            for (const auto& [k, v] : x.items) {
                const Value* other = y.find(k);
                if (!other || !equals(v, *other)) return false;
            }
            return true;
        }
        default:
            return a.identity() == b.identity();
    }
}

bool less(const Value& a, const Value& b) {
    ValueDepth guard;
    if (a.is_number() && b.is_number()) {
        if (a.is_float() || b.is_float()) return a.as_float() < b.as_float();
        return a.as_int() < b.as_int();
    }
    if (a.is_string() && b.is_string()) return a.str() < b.str();
    if (a.is_list() && b.is_list() &&
        (a.list().flavor == List::Flavor::Tuple) == (b.list().flavor == List::Flavor::Tuple)) {
        const auto& x = a.list().items;
        const auto& y = b.list().items;
        for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) {
            if (!equals(x[i], y[i])) return less(x[i], y[i]);
        }
        return x.size() < y.size();
    }
    throw Failure("TypeError", "'<' not supported between instances of '" + type_name(a) +
                                   "' and '" + type_name(b) + "'");
}

std::int64_t index_value(const Value& v) {
    if (v.is_int() || v.is_bool()) return v.as_int();
    throw Failure("TypeError", "'" + type_name(v) + "' object cannot be interpreted as an integer");
}

std::string type_name(const Value& v) {
    switch (v.kind()) {
        case Kind::Undefined:
            return "Undefined";
        case Kind::None:
            return "NoneType";
        case Kind::Bool:
            return "bool";
        case Kind::Int:
            return "int";
        case Kind::Float:
            return "float";
        case Kind::String:
            return "str";
        case Kind::List:
            switch (v.list().flavor) {
                case List::Flavor::Tuple:
                    return "tuple";
                case List::Flavor::Generator:
                    return "generator";
                default:
                    return "list";
            }
        case Kind::Dict:
            return "dict";
        case Kind::Callable:
            return "function";
        case Kind::Namespace:
            return "Namespace";
        case Kind::Loop:
            return "LoopContext";
    }
    return "object";
}

// ----- str() and repr() -----

void append_float(std::string& out, double f) {
    if (std::isnan(f)) {
        out += "nan";
        return;
    }
    if (std::isinf(f)) {
        out += f < 0 ? "-inf" : "inf";
        return;
    }
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, f, std::chars_format::scientific);
    std::string_view sci(buf, static_cast<std::size_t>(res.ptr - buf));
    // sci = [-]D[.DDD]e(+|-)XX
    bool negative = false;
    if (!sci.empty() && sci[0] == '-') {
        negative = true;
        sci.remove_prefix(1);
    }
    auto epos = sci.find('e');
    std::string digits;
    for (char c : sci.substr(0, epos))
        if (c != '.') digits += c;
    int exp = 0;
    std::from_chars(sci.data() + epos + 1 + (sci[epos + 1] == '+' ? 1 : 0), sci.data() + sci.size(),
                    exp);
    if (negative) out += '-';
    if (exp >= -4 && exp < 16) {
        if (exp < 0) {
            out += "0.";
            out.append(static_cast<std::size_t>(-exp - 1), '0');
            out += digits;
        } else if (static_cast<std::size_t>(exp) + 1 >= digits.size()) {
            out += digits;
            out.append(static_cast<std::size_t>(exp) + 1 - digits.size(), '0');
            out += ".0";
        } else {
            out.append(digits, 0, static_cast<std::size_t>(exp) + 1);
            out += '.';
            out.append(digits, static_cast<std::size_t>(exp) + 1);
        }
    } else {
        out += digits[0];
        if (digits.size() > 1) {
            out += '.';
            out.append(digits, 1);
        }
        out += 'e';
        out += exp < 0 ? '-' : '+';
        int a = exp < 0 ? -exp : exp;
        if (a < 10) out += '0';
        out += std::to_string(a);
    }
}

static void append_int(std::string& out, std::int64_t i) {
    char buf[24];
    auto res = std::to_chars(buf, buf + sizeof buf, i);
    out.append(buf, res.ptr);
}

void append_str(std::string& out, const Value& v) {
    switch (v.kind()) {
        case Kind::Undefined:
            return;
        case Kind::String:
            out += v.str();
            return;
        case Kind::Int:
            append_int(out, v.as_int());
            return;
        case Kind::Float:
            append_float(out, v.as_float());
            return;
        case Kind::Bool:
            out += v.as_bool() ? "True" : "False";
            return;
        case Kind::None:
            out += "None";
            return;
        default:
            append_repr(out, v);
            return;
    }
}

std::string to_str(const Value& v) {
    if (v.is_string()) return v.str();
    std::string out;
    append_str(out, v);
    return out;
}

Value strip_space_of(const Value& s, bool left, bool right) {
    std::string_view kept = strip_space(s.str(), left, right);
    if (kept.size() == s.str().size()) return s;
    return Value::string(std::string(kept));
}

// Decodes one UTF-8 code point at s[i]; returns its length (1 for invalid bytes).
static std::size_t decode_utf8(std::string_view s, std::size_t i, std::uint32_t& cp) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
        cp = c;
        return 1;
    }
    std::size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (len == 1 || i + len > s.size()) {
        cp = c;
        return 1;
    }
    cp = c & (0x3F >> (len - 1));
    for (std::size_t k = 1; k < len; ++k)
        cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    return len;
}

// Code points Python's str.isprintable() rejects (the ones that matter in practice).
static bool printable(std::uint32_t cp) {
    if (cp < 0x20 || cp == 0x7F) return false;
    if (cp >= 0x80 && cp <= 0xA0) return false;
    if (cp == 0xAD || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200F) ||
        (cp >= 0x2028 && cp <= 0x202F) || (cp >= 0x205F && cp <= 0x206F) || cp == 0x3000 ||
        cp == 0xFEFF || (cp >= 0xD800 && cp <= 0xDFFF) || (cp >= 0xE000 && cp <= 0xF8FF) ||
        cp == 0xFFF9 || cp == 0xFFFA || cp == 0xFFFB)
        return false;
    return true;
}

static void append_repr_string(std::string& out, std::string_view s) {
    bool has_single = s.find('\'') != std::string_view::npos;
    bool has_double = s.find('"') != std::string_view::npos;
    char quote = has_single && !has_double ? '"' : '\'';
    out += quote;
    static const char* hex = "0123456789abcdef";
    for (std::size_t i = 0; i < s.size();) {
        // copy the run of printable ASCII that needs no escaping in one append
        std::size_t run = i;
        while (run < s.size() && s[run] >= 0x20 && s[run] < 0x7F && s[run] != quote &&
               s[run] != '\\')
            ++run;
        if (run > i) {
            out.append(s.data() + i, run - i);
            i = run;
            if (i >= s.size()) break;
        }
        std::uint32_t cp;
        std::size_t len = decode_utf8(s, i, cp);
        char c = s[i];
        if (c == quote || c == '\\') {
            out += '\\';
            out += c;
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c == '\t') {
            out += "\\t";
        } else if (printable(cp)) {
            out.append(s.data() + i, len);
        } else if (cp < 0x100) {
            out += "\\x";
            out += hex[cp >> 4];
            out += hex[cp & 15];
        } else if (cp < 0x10000) {
            out += "\\u";
            for (int shift = 12; shift >= 0; shift -= 4) out += hex[(cp >> shift) & 15];
        } else {
            out += "\\U";
            for (int shift = 28; shift >= 0; shift -= 4) out += hex[(cp >> shift) & 15];
        }
        i += len;
    }
    out += quote;
}

std::string repr_string(std::string_view s) {
    std::string out;
    append_repr_string(out, s);
    return out;
}

void append_repr(std::string& out, const Value& v) {
    ValueDepth guard;
    switch (v.kind()) {
        case Kind::String:
            append_repr_string(out, v.str());
            return;
        case Kind::List: {
            const auto& l = v.list();
            if (l.flavor == List::Flavor::Generator) {
                out += "<generator object>";
                return;
            }
            bool tuple = l.flavor == List::Flavor::Tuple;
            out += tuple ? '(' : '[';
            for (std::size_t i = 0; i < l.items.size(); ++i) {
                if (i) out += ", ";
                append_repr(out, l.items[i]);
            }
            if (tuple && l.items.size() == 1) out += ',';
            out += tuple ? ')' : ']';
            return;
        }
        case Kind::Dict: {
            out += '{';
            bool first = true;
            for (const auto& [k, val] : v.dict().items) {
                if (!first) out += ", ";
                first = false;
                append_repr(out, k);
                out += ": ";
                append_repr(out, val);
            }
            out += '}';
            return;
        }
        case Kind::Undefined:
            return;
        case Kind::Callable:
            out += "<function " + v.callable().name() + ">";
            return;
        case Kind::Namespace: {
            out += "<Namespace {";
            bool first = true;
            for (const auto& [k, val] : v.ns().attrs) {
                if (!first) out += ", ";
                first = false;
                append_repr_string(out, k.str());
                out += ": ";
                append_repr(out, val);
            }
            out += "}>";
            return;
        }
        case Kind::Loop: {
            const auto& l = v.loop();
            out += "<LoopContext " + std::to_string(l.index0 + 1) + "/" +
                   std::to_string(l.items->items.size()) + ">";
            return;
        }
        default:
            append_str(out, v);
            return;
    }
}

// ----- UTF-8 -----

bool is_ascii(std::string_view s) {
    for (char c : s)
        if (static_cast<unsigned char>(c) >= 0x80) return false;
    return true;
}

std::size_t utf8_length(std::string_view s) {
    std::size_t n = 0;
    for (char c : s)
        if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
    return n;
}

std::vector<std::string_view> utf8_chars(std::string_view s) {
    std::vector<std::string_view> out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        std::uint32_t cp;
        std::size_t len = decode_utf8(s, i, cp);
        out.push_back(s.substr(i, len));
        i += len;
    }
    return out;
}

}  // namespace cmfpipe::jinja2
