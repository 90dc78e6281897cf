#pragma once
// The engine's value: what templates see. Python semantics where templates can observe them
// (None/True/False, int vs float, reprs, equality across int/float/bool). Scalars live inline;
// strings, lists, dicts and objects are shared by pointer so passing a value never copies data.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "ref.hpp"
#include "text.hpp"

namespace cmfpipe::jinja2 {

struct Node;
class Evaluator;
struct List;
struct Dict;
struct Callable;
struct Namespace;
struct LoopState;

enum class Kind : std::uint8_t {
    Undefined,
    None,
    Bool,
    Int,
    Float,
    String,
    List,
    Dict,
    Callable,
    Namespace,
    Loop
};

// Why a value is undefined; decides the message when the undefined value is used.
enum class UndefinedReason : std::uint8_t {
    Missing,    // a name with no binding: "'x' is undefined"
    Attribute,  // obj.name / obj['name']: "'dict object' has no attribute 'name'"
    Element,    // obj[3]: "list object has no element 3"
    Unsafe,     // sandbox: "access to attribute 'append' of 'list' object is unsafe."
    Plain,      // no hint
};

struct UndefinedInfo final : Shared {
    UndefinedReason reason = UndefinedReason::Plain;
    std::string name;      // the variable or attribute name (or repr of the element key)
    std::string obj_type;  // "dict object", "list", ...
};

class Value;
// The engine's arrays of values, from the pool (pool.hpp).
using Values = std::vector<Value, PoolAllocator<Value>>;
using DictItems = std::vector<std::pair<Value, Value>, PoolAllocator<std::pair<Value, Value>>>;

// A string a value owns (Value::string); borrowed strings are plain std::strings.
struct Text final : Shared {
    explicit Text(std::string s) : text(std::move(s)) {}
    std::string text;
};

// 16 bytes: the kind, a flag, and either a scalar or a pointer. A pointer is counted (the value
// is one of its owners) or not (a borrowed string, a builtin, an undefined value's AST site).
class Value {
  public:
    Value() : kind_(Kind::Undefined) { u_.i = 0; }
    Value(const Value& other) noexcept {
        take_bits(other);
        retain();
    }
    Value(Value&& other) noexcept {
        take_bits(other);
        other.forget();
    }
    Value& operator=(const Value& other) noexcept {
        other.retain();  // first: other may be held only through this value
        drop();
        take_bits(other);
        return *this;
    }
    Value& operator=(Value&& other) noexcept {
        if (this != &other) {
            drop();
            take_bits(other);
            other.forget();
        }
        return *this;
    }
    ~Value() { drop(); }

    static Value none() {
        Value v;
        v.kind_ = Kind::None;
        return v;
    }
    static Value boolean(bool b) {
        Value v;
        v.kind_ = Kind::Bool;
        v.u_.b = b;
        return v;
    }
    static Value integer(std::int64_t i) {
        Value v;
        v.kind_ = Kind::Int;
        v.u_.i = i;
        return v;
    }
    static Value real(double f) {
        Value v;
        v.kind_ = Kind::Float;
        v.u_.f = f;
        return v;
    }
    static Value string(std::string s) {
        return owning(Kind::String, make_ref<Text>(std::move(s)));
    }
    // Jinja's Markup: a string marked safe (|safe, |escape); `+` with a plain str escapes the str.
    static Value markup(std::string s) {
        Value v = string(std::move(s));
        v.aux_ = 1;
        return v;
    }
    bool is_markup() const { return kind_ == Kind::String && aux_ == 1; }
    // A string owned by something that outlives the render (the caller's JSON inputs, a
    // template's constants): copying and dropping it never allocates or counts.
    static Value borrowed_string(const std::string& s) {
        Value v;
        v.kind_ = Kind::String;
        v.u_.text = &s;
        return v;
    }
    static Value list(Ref<List> l) { return owning(Kind::List, std::move(l)); }
    static Value dict(Ref<Dict> d) { return owning(Kind::Dict, std::move(d)); }
    static Value callable(Ref<Callable> c) { return owning(Kind::Callable, std::move(c)); }
    // A callable that outlives every render (a builtin): not counted, so renders on several
    // threads may copy it at once.
    static Value immortal_callable(Callable& c);
    static Value ns(Ref<Namespace> n) { return owning(Kind::Namespace, std::move(n)); }
    static Value loop(Ref<LoopState> l) { return owning(Kind::Loop, std::move(l)); }
    static Value undefined(Ref<UndefinedInfo> info) {
        return owning(Kind::Undefined, std::move(info));
    }
    static Value undefined(UndefinedReason reason, std::string name, std::string obj_type = {});
    // Undefined produced at an AST site (a Name, GetAttr or GetItem node), with the kind of the
    // object that lacked the attribute; the message is derived from the site only when needed,
    // so probing `x.y is defined` allocates nothing.
    static Value undefined_at(const Node* site, Kind obj_kind) {
        Value v;
        v.aux_ = static_cast<std::uint8_t>(obj_kind);
        v.u_.site = site;
        return v;
    }
    const Node* undefined_site() const { return counted_ ? nullptr : u_.site; }
    Kind undefined_obj_kind() const { return static_cast<Kind>(aux_); }

    Kind kind() const { return kind_; }
    bool is_undefined() const { return kind_ == Kind::Undefined; }
    bool is_none() const { return kind_ == Kind::None; }
    bool is_bool() const { return kind_ == Kind::Bool; }
    bool is_int() const { return kind_ == Kind::Int; }
    bool is_float() const { return kind_ == Kind::Float; }
    bool is_number() const {
        return kind_ == Kind::Int || kind_ == Kind::Float || kind_ == Kind::Bool;
    }
    bool is_string() const { return kind_ == Kind::String; }
    bool is_list() const { return kind_ == Kind::List; }
    bool is_dict() const { return kind_ == Kind::Dict; }
    bool is_callable() const { return kind_ == Kind::Callable; }

    bool as_bool() const { return kind_ == Kind::Bool && u_.b; }
    std::int64_t as_int() const {
        if (kind_ == Kind::Int) return u_.i;
        return kind_ == Kind::Bool && u_.b ? 1 : 0;
    }
    double as_float() const { return kind_ == Kind::Float ? u_.f : static_cast<double>(as_int()); }
    const std::string& str() const;
    // The string this value alone holds (made by string(), held by no one else), which `+` and
    // `~` may then extend in place instead of copying; null for any other value.
    std::string* sole_string();
    // The same for a Markup string: `Markup + str` extends it with the escaped str.
    std::string* sole_markup();
    // Containers are shared by reference, as in Python; only the prompty profile mutates them.
    List& list() const;
    Dict& dict() const;
    Callable& callable() const;
    Namespace& ns() const;
    LoopState& loop() const;
    const UndefinedInfo* undefined_info() const;
    Ref<List> list_ptr() const;
    Ref<LoopState> loop_ptr() const;
    Ref<Dict> dict_ptr() const;
    // What `is sameas` compares: the object a string, container or callable is; null for scalars.
    const void* identity() const {
        if (kind_ == Kind::String && !counted_) return u_.text;
        return counted_ || kind_ == Kind::Callable ? u_.obj : nullptr;
    }

  private:
    // A value of kind k that owns one count of p (a string, container, callable, loop state or
    // undefined info): copying the value copies the pointer, never the data.
    template <class T>
    static Value owning(Kind k, Ref<T> p) {
        Value v;
        v.kind_ = k;
        v.counted_ = true;
        v.u_.obj = const_cast<std::remove_const_t<T>*>(p.release());
        return v;
    }
    void take_bits(const Value& other) {
        kind_ = other.kind_;
        aux_ = other.aux_;
        counted_ = other.counted_;
        u_ = other.u_;
    }
    void retain() const {
        if (counted_) ++u_.obj->refs;
    }
    void drop() {
        if (counted_ && --u_.obj->refs == 0) destroy();
    }
    void forget() {  // what a moved-from value becomes: undefined, owning nothing
        kind_ = Kind::Undefined;
        aux_ = 0;
        counted_ = false;
        u_.i = 0;
    }
    void destroy();  // deletes the object as what its kind says it is

    Kind kind_;
    std::uint8_t aux_ = 0;
    bool counted_ = false;
    union {
        bool b;
        std::int64_t i;
        double f;
        const Node* site;
        const std::string* text;  // a borrowed string
        Shared* obj;
    } u_;
};

// A Python list or tuple (or the lazy result of map/select, which Python calls a generator).
struct List final : Shared {
    enum class Flavor : std::uint8_t { List, Tuple, Generator };
    Values items;
    Flavor flavor = Flavor::List;
    ~List();  // iterative: a million-deep nest must not overflow the stack when freed
};

// Recursive algorithms over values (repr, equality, ordering, tojson, input conversion) stop
// with LimitExceeded beyond this depth instead of overflowing the stack.
constexpr int kMaxValueDepth = 512;

// A Python dict: insertion-ordered, keys compared with Python equality (1 == 1.0 == True).
struct Dict final : Shared {
    DictItems items;
    ~Dict();
    const Value* find(const Value& key) const;
    const Value* find(std::string_view key) const;
    void set(Value key, Value value);
    bool erase(const Value& key);
};

// Jinja's namespace(): the one object templates may assign attributes to.
// Attribute and keyword names are string values: borrowed from the template where it names them
// (namespace(last_query_index=0), ns.attr = ...), so binding one copies no text.
using NamedValues = std::vector<std::pair<Value, Value>, PoolAllocator<std::pair<Value, Value>>>;

struct Namespace final : Shared {
    NamedValues attrs;
    ~Namespace();
    const Value* find(std::string_view name) const;
    void set(const Value& name, Value value);
};

// Call arguments: positional then keyword, as Python passes them.
struct Args {
    Values positional;
    NamedValues keyword;
    const Value* kw(std::string_view name) const;
    // positional[index], else keyword `name`, else nullptr.
    const Value* get(std::size_t index, std::string_view name) const;
    size_t count() const { return positional.size() + keyword.size(); }
};

// Macros, builtin functions, bound methods: anything a template can call.
struct Callable : Shared {
    virtual ~Callable() = default;
    virtual Value call(Evaluator& ev, Args& args) = 0;
    virtual std::string name() const = 0;
    // A template macro: its calls count as template recursion (asked on every call, so a
    // virtual and not a dynamic_cast).
    virtual bool is_macro() const { return false; }
};

// The state behind `loop` inside a for loop.
struct LoopState final : Shared {
    Ref<List> items;  // the sequence being iterated
    std::size_t index0 = 0;
    int depth0 = 0;
    Ref<Callable> recurse;  // loop(...) for recursive loops
    Values changed_last;
    bool changed_seen = false;
};

// ----- Value's accessors, once the types are complete -----
inline const std::string& Value::str() const {
    return counted_ ? static_cast<const Text*>(u_.obj)->text : *u_.text;
}
inline std::string* Value::sole_string() {
    if (kind_ != Kind::String || aux_ != 0 || !counted_ || u_.obj->refs != 1) return nullptr;
    return &static_cast<Text*>(u_.obj)->text;
}
inline std::string* Value::sole_markup() {
    if (kind_ != Kind::String || aux_ != 1 || !counted_ || u_.obj->refs != 1) return nullptr;
    return &static_cast<Text*>(u_.obj)->text;
}
inline List& Value::list() const {
    return *static_cast<List*>(u_.obj);
}
inline Dict& Value::dict() const {
    return *static_cast<Dict*>(u_.obj);
}
inline Callable& Value::callable() const {
    return *static_cast<Callable*>(u_.obj);
}
inline Namespace& Value::ns() const {
    return *static_cast<Namespace*>(u_.obj);
}
inline LoopState& Value::loop() const {
    return *static_cast<LoopState*>(u_.obj);
}
inline const UndefinedInfo* Value::undefined_info() const {
    return counted_ ? static_cast<const UndefinedInfo*>(u_.obj) : nullptr;
}
inline Ref<List> Value::list_ptr() const {
    return Ref<List>::share(&list());
}
inline Ref<LoopState> Value::loop_ptr() const {
    return Ref<LoopState>::share(&loop());
}
inline Ref<Dict> Value::dict_ptr() const {
    return Ref<Dict>::share(&dict());
}
inline Value Value::immortal_callable(Callable& c) {
    Value v;
    v.kind_ = Kind::Callable;
    v.u_.obj = &c;
    return v;
}

// ----- Python semantics on values -----
bool truthy(const Value& v);
bool equals_impl(const Value& a, const Value& b);   // equals without the depth guard
bool equals_other(const Value& a, const Value& b);  // equals for all but two strings
// Python ==. Two strings, what templates compare most (roles, types, names), are compared inline.
inline bool equals(const Value& a, const Value& b) {
    if (a.is_string() && b.is_string()) return same_text(a.str(), b.str());
    return equals_other(a, b);
}
// Python '<' ordering; throws TypeError text when the types do not order.
bool less(const Value& a, const Value& b);
// The Python type name ("str", "int", "dict", "NoneType", "Undefined", ...).
std::string type_name(const Value& v);
// Python's operator.index: an int (or bool) as an integer, TypeError for anything else.
std::int64_t index_value(const Value& v);
// str(v) appended to out (undefined prints nothing).
void append_str(std::string& out, const Value& v);
std::string to_str(const Value& v);
// k as a name (a keyword or attribute): k itself when a plain string, else str(k).
inline Value name_value(const Value& k) {
    return k.is_string() && !k.is_markup() ? k : Value::string(to_str(k));
}
// The string s with Python whitespace stripped from the chosen ends; s itself, shared, where
// there is none to strip (Python's str.strip returns the same str): `content|trim` copies nothing.
Value strip_space_of(const Value& s, bool left, bool right);
// repr(v) appended to out.
void append_repr(std::string& out, const Value& v);
std::string repr_string(std::string_view s);
// Python's float repr: shortest round-trip digits, "1.0", "1e+16", "inf".
void append_float(std::string& out, double f);

// UTF-8 helpers: Python indexes strings by code point.
std::size_t utf8_length(std::string_view s);
std::vector<std::string_view> utf8_chars(std::string_view s);
bool is_ascii(std::string_view s);

Ref<List> make_list(Values items = {}, List::Flavor flavor = List::Flavor::List);

}  // namespace cmfpipe::jinja2
