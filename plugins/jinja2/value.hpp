#pragma once
// The engine's value: what templates see. Python semantics where templates can observe them
// (None/True/False, int vs float, reprs, equality across int/float/bool). Scalars live inline;
// strings, lists, dicts and objects are shared by pointer so passing a value never copies data.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

struct UndefinedInfo {
    UndefinedReason reason = UndefinedReason::Plain;
    std::string name;      // the variable or attribute name (or repr of the element key)
    std::string obj_type;  // "dict object", "list", ...
};

class Value {
  public:
    Value() : kind_(Kind::Undefined) { num_.i = 0; }
    static Value none() {
        Value v;
        v.kind_ = Kind::None;
        return v;
    }
    static Value boolean(bool b) {
        Value v;
        v.kind_ = Kind::Bool;
        v.num_.i = 0;
        v.num_.b = b;
        return v;
    }
    static Value integer(std::int64_t i) {
        Value v;
        v.kind_ = Kind::Int;
        v.num_.i = i;
        return v;
    }
    static Value real(double f) {
        Value v;
        v.kind_ = Kind::Float;
        v.num_.f = f;
        return v;
    }
    static Value string(std::string s);
    // Jinja's Markup: a string marked safe (|safe, |escape); `+` with a plain str escapes the str.
    static Value markup(std::string s) {
        Value v = string(std::move(s));
        v.aux_ = 1;
        return v;
    }
    bool is_markup() const { return kind_ == Kind::String && aux_ == 1; }
    // A string owned by something that outlives the render (the caller's JSON inputs): shared
    // with no control block, so making, copying and dropping it never allocates or counts.
    static Value borrowed_string(const std::string& s) {
        return shared(Kind::String, std::shared_ptr<const void>(std::shared_ptr<const void>(), &s));
    }
    static Value list(std::shared_ptr<List> l) { return shared(Kind::List, std::move(l)); }
    static Value dict(std::shared_ptr<Dict> d) { return shared(Kind::Dict, std::move(d)); }
    static Value callable(std::shared_ptr<Callable> c) {
        return shared(Kind::Callable, std::move(c));
    }
    static Value ns(std::shared_ptr<Namespace> n) { return shared(Kind::Namespace, std::move(n)); }
    static Value loop(std::shared_ptr<LoopState> l) { return shared(Kind::Loop, std::move(l)); }
    static Value undefined(std::shared_ptr<const UndefinedInfo> info) {
        return shared(Kind::Undefined, std::move(info));
    }
    static Value undefined(UndefinedReason reason, std::string name, std::string obj_type = {});
    // Undefined produced at an AST site (a Name, GetAttr or GetItem node), with the kind of the
    // object that lacked the attribute; the message is derived from the site only when needed,
    // so probing `x.y is defined` allocates nothing.
    static Value undefined_at(const Node* site, Kind obj_kind) {
        Value v;
        v.aux_ = static_cast<std::uint8_t>(obj_kind);
        v.num_.site = site;
        return v;
    }
    const Node* undefined_site() const { return num_.site; }
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

    bool as_bool() const { return num_.b; }
    std::int64_t as_int() const { return kind_ == Kind::Bool ? (num_.b ? 1 : 0) : num_.i; }
    double as_float() const {
        return kind_ == Kind::Float ? num_.f : static_cast<double>(as_int());
    }
    const std::string& str() const { return *static_cast<const std::string*>(ptr_.get()); }
    // The string this value alone holds (made by string(), held by no one else), which `+` and
    // `~` may then extend in place instead of copying; null for any other value.
    std::string* sole_string() {
        if (kind_ != Kind::String || aux_ != 0 || ptr_.use_count() != 1) return nullptr;
        return static_cast<std::string*>(const_cast<void*>(ptr_.get()));
    }
    // Containers are shared by reference, as in Python; only the prompty profile mutates them.
    List& list() const { return *static_cast<List*>(const_cast<void*>(ptr_.get())); }
    Dict& dict() const { return *static_cast<Dict*>(const_cast<void*>(ptr_.get())); }
    Callable& callable() const { return *static_cast<Callable*>(const_cast<void*>(ptr_.get())); }
    Namespace& ns() const { return *static_cast<Namespace*>(const_cast<void*>(ptr_.get())); }
    LoopState& loop() const { return *static_cast<LoopState*>(const_cast<void*>(ptr_.get())); }
    const UndefinedInfo* undefined_info() const {
        return static_cast<const UndefinedInfo*>(ptr_.get());
    }
    std::shared_ptr<List> list_ptr() const {
        return std::static_pointer_cast<List>(std::const_pointer_cast<void>(ptr_));
    }
    std::shared_ptr<LoopState> loop_ptr() const {
        return std::static_pointer_cast<LoopState>(std::const_pointer_cast<void>(ptr_));
    }
    std::shared_ptr<Dict> dict_ptr() const {
        return std::static_pointer_cast<Dict>(std::const_pointer_cast<void>(ptr_));
    }
    const void* identity() const { return ptr_.get(); }

  private:
    // A value of kind k that shares p (a string, container, callable, loop state or undefined
    // info): copying the value copies the pointer, never the data.
    static Value shared(Kind k, std::shared_ptr<const void> p) {
        Value v;
        v.kind_ = k;
        v.ptr_ = std::move(p);
        return v;
    }

    Kind kind_;
    std::uint8_t aux_ = 0;
    union {
        bool b;
        std::int64_t i;
        double f;
        const Node* site;
    } num_;
    std::shared_ptr<const void> ptr_;
};

// A Python list or tuple (or the lazy result of map/select, which Python calls a generator).
struct List {
    enum class Flavor : std::uint8_t { List, Tuple, Generator };
    std::vector<Value> items;
    Flavor flavor = Flavor::List;
    ~List();  // iterative: a million-deep nest must not overflow the stack when freed
};

// Recursive algorithms over values (repr, equality, ordering, tojson, input conversion) stop
// with LimitExceeded beyond this depth instead of overflowing the stack.
constexpr int kMaxValueDepth = 512;

// A Python dict: insertion-ordered, keys compared with Python equality (1 == 1.0 == True).
struct Dict {
    std::vector<std::pair<Value, Value>> items;
    ~Dict();
    const Value* find(const Value& key) const;
    const Value* find(std::string_view key) const;
    void set(Value key, Value value);
    bool erase(const Value& key);
};

// Jinja's namespace(): the one object templates may assign attributes to.
struct Namespace {
    std::vector<std::pair<std::string, Value>> attrs;
    ~Namespace();
    const Value* find(std::string_view name) const;
    void set(std::string_view name, Value value);
};

// Call arguments: positional then keyword, as Python passes them.
struct Args {
    std::vector<Value> positional;
    std::vector<std::pair<std::string, Value>> keyword;
    const Value* kw(std::string_view name) const;
    // positional[index], else keyword `name`, else nullptr.
    const Value* get(std::size_t index, std::string_view name) const;
    size_t count() const { return positional.size() + keyword.size(); }
};

// Macros, builtin functions, bound methods: anything a template can call.
struct Callable {
    virtual ~Callable() = default;
    virtual Value call(Evaluator& ev, Args& args) = 0;
    virtual std::string name() const = 0;
    // A template macro: its calls count as template recursion (asked on every call, so a
    // virtual and not a dynamic_cast).
    virtual bool is_macro() const { return false; }
};

// The state behind `loop` inside a for loop.
struct LoopState {
    std::shared_ptr<List> items;  // the sequence being iterated
    std::size_t index0 = 0;
    int depth0 = 0;
    std::shared_ptr<Callable> recurse;  // loop(...) for recursive loops
    std::vector<Value> changed_last;
    bool changed_seen = false;
};

// ----- Python semantics on values -----
bool truthy(const Value& v);
bool equals(const Value& a, const Value& b);
bool equals_impl(const Value& a, const Value& b);  // equals without the depth guard
// Python '<' ordering; throws TypeError text when the types do not order.
bool less(const Value& a, const Value& b);
// The Python type name ("str", "int", "dict", "NoneType", "Undefined", ...).
std::string type_name(const Value& v);
// Python's operator.index: an int (or bool) as an integer, TypeError for anything else.
std::int64_t index_value(const Value& v);
// str(v) appended to out (undefined prints nothing).
void append_str(std::string& out, const Value& v);
std::string to_str(const Value& v);
// repr(v) appended to out.
void append_repr(std::string& out, const Value& v);
std::string repr_string(std::string_view s);
// Python's float repr: shortest round-trip digits, "1.0", "1e+16", "inf".
void append_float(std::string& out, double f);

// UTF-8 helpers: Python indexes strings by code point.
std::size_t utf8_length(std::string_view s);
std::vector<std::string_view> utf8_chars(std::string_view s);
bool is_ascii(std::string_view s);

std::shared_ptr<List> make_list(std::vector<Value> items = {},
                                List::Flavor flavor = List::Flavor::List);

}  // namespace cmfpipe::jinja2
