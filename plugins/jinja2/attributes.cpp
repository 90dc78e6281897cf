// Attribute and item access (Jinja's getattr / getitem under the sandbox), iteration, and the
// message an undefined value raises when it is used.
#include "evaluator.hpp"
#include "methods.hpp"

namespace cmfpipe::jinja2 {
namespace {

// loop.cycle / loop.changed bound to one loop state.
struct LoopMethod final : Callable {
    Ref<LoopState> state;
    bool is_cycle;
    Value call(Evaluator&, Args& args) override {
        if (is_cycle) {
            if (args.positional.empty()) throw Failure("TypeError", "no items for cycling given");
            return args.positional[state->index0 % args.positional.size()];
        }
        bool changed = !state->changed_seen ||
                       state->changed_last.size() != args.positional.size() ||
                       !std::equal(state->changed_last.begin(), state->changed_last.end(),
                                   args.positional.begin(),
                                   [](const Value& a, const Value& b) { return equals(a, b); });
        state->changed_seen = true;
        state->changed_last = args.positional;
        return Value::boolean(changed);
    }
    std::string name() const override { return is_cycle ? "cycle" : "changed"; }
};

std::string kind_object_name(Kind k) {
    switch (k) {
        case Kind::None:
            return "None";
        case Kind::Bool:
            return "bool object";
        case Kind::Int:
            return "int object";
        case Kind::Float:
            return "float object";
        case Kind::String:
            return "str object";
        case Kind::List:
            return "list object";
        case Kind::Dict:
            return "dict object";
        case Kind::Namespace:
            return "Namespace object";
        case Kind::Loop:
            return "LoopContext object";
        case Kind::Callable:
            return "function object";
        default:
            return "object";
    }
}

std::string object_name(const Value& v) {
    if (v.is_list()) return type_name(v) + " object";
    return kind_object_name(v.kind());
}

}  // namespace

LoopAttr loop_attr(std::string_view name) {
    static constexpr std::pair<std::string_view, LoopAttr> kNames[] = {
        {"index", LoopAttr::Index},       {"index0", LoopAttr::Index0},
        {"revindex", LoopAttr::Revindex}, {"revindex0", LoopAttr::Revindex0},
        {"first", LoopAttr::First},       {"last", LoopAttr::Last},
        {"length", LoopAttr::Length},     {"depth", LoopAttr::Depth},
        {"depth0", LoopAttr::Depth0},     {"previtem", LoopAttr::Previtem},
        {"nextitem", LoopAttr::Nextitem}, {"cycle", LoopAttr::Cycle},
        {"changed", LoopAttr::Changed}};
    for (const auto& [n, attr] : kNames)
        if (n == name) return attr;
    return LoopAttr::None;
}

std::string Evaluator::undefined_message(const Value& u) const {
    if (const UndefinedInfo* info = u.undefined_info()) {
        switch (info->reason) {
            case UndefinedReason::Missing:
                return repr_string(info->name) + " is undefined";
            case UndefinedReason::Attribute:
                return repr_string(info->obj_type) + " has no attribute " + repr_string(info->name);
            case UndefinedReason::Element:
                return info->obj_type + " has no element " + info->name;
            case UndefinedReason::Unsafe:
                return "access to attribute " + repr_string(info->name) + " of " +
                       repr_string(info->obj_type) + " object is unsafe.";
            case UndefinedReason::Plain:
                return info->name.empty() ? "undefined value" : info->name;
        }
    }
    const Node* site = u.undefined_site();
    if (!site) return "undefined value";
    const auto* e = static_cast<const Expr*>(site);
    switch (e->kind) {
        case ExprKind::Name:
            return repr_string(static_cast<const NameExpr*>(e)->name) + " is undefined";
        case ExprKind::GetAttr:
            return repr_string(kind_object_name(u.undefined_obj_kind())) + " has no attribute " +
                   repr_string(static_cast<const GetAttrExpr*>(e)->attr);
        case ExprKind::GetItem: {
            const auto& key = static_cast<const GetItemExpr*>(e)->key;
            if (key->kind == ExprKind::Const) {
                const Value& k = static_cast<const ConstExpr&>(*key).value;
                std::string r;
                append_repr(r, k);
                if (k.is_string())
                    return repr_string(kind_object_name(u.undefined_obj_kind())) +
                           " has no attribute " + r;
                return kind_object_name(u.undefined_obj_kind()) + " has no element " + r;
            }
            return "undefined value";
        }
        default:
            return "undefined value";
    }
}

void Evaluator::raise_undefined(const Value& u) {
    const UndefinedInfo* info = u.undefined_info();
    bool unsafe = info && info->reason == UndefinedReason::Unsafe;
    throw Failure(unsafe ? "SecurityError" : "UndefinedError", undefined_message(u));
}

// ----- attribute and item access -----

Value Evaluator::getattr(const Value& obj, std::string_view name, const Node* site) {
    const bool at_attr = site && static_cast<const Expr*>(site)->kind == ExprKind::GetAttr;
    // Called by getitem as its fallback: the dict's own keys are already searched, and an
    // undefined result is replaced by getitem's own, so it need not say why.
    const bool at_item = site && static_cast<const Expr*>(site)->kind == ExprKind::GetItem;
    auto methods = [&] {
        return at_attr ? static_cast<const GetAttrExpr*>(site)->methods : method_set(name);
    };
    switch (obj.kind()) {
        case Kind::Undefined:
            raise_undefined(obj);
        case Kind::Dict: {
            MethodKind mk = method_kind(obj, name, methods(), containers_immutable());
            if (mk == MethodKind::Safe) return bound_method(obj, name);
            if (mk == MethodKind::Unsafe)
                return Value::undefined(UndefinedReason::Unsafe, std::string(name), "dict");
            if (!at_item)
                if (const Value* v = obj.dict().find(name)) return *v;
            break;
        }
        case Kind::String:
        case Kind::List: {
            MethodKind mk = method_kind(obj, name, methods(), containers_immutable());
            if (mk == MethodKind::Safe) return bound_method(obj, name);
            if (mk == MethodKind::Unsafe)
                return Value::undefined(UndefinedReason::Unsafe, std::string(name), type_name(obj));
            break;
        }
        case Kind::Namespace:
            if (const Value* v = obj.ns().find(name)) return *v;
            break;
        case Kind::Loop: {
            auto& l = obj.loop();
            std::size_t n = l.items->items.size();
            const LoopAttr attr =
                at_attr ? static_cast<const GetAttrExpr*>(site)->loop_member : loop_attr(name);
            switch (attr) {
                case LoopAttr::Index:
                    return Value::integer(static_cast<std::int64_t>(l.index0 + 1));
                case LoopAttr::Index0:
                    return Value::integer(static_cast<std::int64_t>(l.index0));
                case LoopAttr::Revindex:
                    return Value::integer(static_cast<std::int64_t>(n - l.index0));
                case LoopAttr::Revindex0:
                    return Value::integer(static_cast<std::int64_t>(n - l.index0 - 1));
                case LoopAttr::First:
                    return Value::boolean(l.index0 == 0);
                case LoopAttr::Last:
                    return Value::boolean(l.index0 + 1 == n);
                case LoopAttr::Length:
                    return Value::integer(static_cast<std::int64_t>(n));
                case LoopAttr::Depth:
                    return Value::integer(l.depth0 + 1);
                case LoopAttr::Depth0:
                    return Value::integer(l.depth0);
                case LoopAttr::Previtem:
                    return l.index0 > 0 ? l.items->items[l.index0 - 1]
                                        : Value::undefined(UndefinedReason::Plain,
                                                           "there is no previous item");
                case LoopAttr::Nextitem:
                    return l.index0 + 1 < n
                               ? l.items->items[l.index0 + 1]
                               : Value::undefined(UndefinedReason::Plain, "there is no next item");
                case LoopAttr::Cycle:
                case LoopAttr::Changed: {
                    auto m = make_ref<LoopMethod>();
                    m->state = obj.loop_ptr();
                    m->is_cycle = attr == LoopAttr::Cycle;
                    return Value::callable(std::move(m));
                }
                case LoopAttr::None:
                    break;
            }
            break;
        }
        default:
            break;
    }
    if (name.size() > 1 && name[0] == '_') {
        // the sandbox hides private attributes
        return Value::undefined(UndefinedReason::Unsafe, std::string(name), type_name(obj));
    }
    if (at_attr || at_item) return Value::undefined_at(site, obj.kind());
    return Value::undefined(UndefinedReason::Attribute, std::string(name), object_name(obj));
}

const Value* item_in_place(const Value& obj, const Value& key) {
    if (obj.is_dict()) return obj.dict().find(key);
    if (obj.is_list() && (key.is_int() || key.is_bool())) {
        const auto& items = obj.list().items;
        std::int64_t i = key.as_int();
        if (i < 0) i += static_cast<std::int64_t>(items.size());
        if (i >= 0 && i < static_cast<std::int64_t>(items.size()))
            return &items[static_cast<std::size_t>(i)];
    }
    return nullptr;
}

Value Evaluator::getitem(const Value& obj, const Value& key, const Node* site) {
    switch (obj.kind()) {
        case Kind::Undefined:
            raise_undefined(obj);
        case Kind::Dict:
        case Kind::List:
            if (const Value* v = item_in_place(obj, key)) return *v;
            break;
        case Kind::String:
            if (key.is_int() || key.is_bool()) {
                const std::string& s = obj.str();
                std::int64_t i = key.as_int();
                if (is_ascii(s)) {
                    if (i < 0) i += static_cast<std::int64_t>(s.size());
                    if (i >= 0 && i < static_cast<std::int64_t>(s.size()))
                        return Value::string(std::string(1, s[static_cast<std::size_t>(i)]));
                } else {
                    auto chars = utf8_chars(s);
                    if (i < 0) i += static_cast<std::int64_t>(chars.size());
                    if (i >= 0 && i < static_cast<std::int64_t>(chars.size()))
                        return Value::string(std::string(chars[static_cast<std::size_t>(i)]));
                }
            }
            break;
        case Kind::Namespace:
            if (key.is_string())
                if (const Value* v = obj.ns().find(key.str())) return *v;
            break;
        default:
            break;
    }
    if (key.is_string() && obj.kind() != Kind::Namespace) {
        Value v = getattr(obj, key.str(), site);
        if (!v.is_undefined()) return v;
        const UndefinedInfo* info = v.undefined_info();
        if (info && info->reason == UndefinedReason::Unsafe) return v;
    }
    if (site && static_cast<const Expr*>(site)->kind == ExprKind::GetItem &&
        static_cast<const GetItemExpr*>(site)->key->kind == ExprKind::Const)
        return Value::undefined_at(site, obj.kind());
    std::string r;
    append_repr(r, key);
    if (key.is_string())
        return Value::undefined(UndefinedReason::Attribute, key.str(), object_name(obj));
    return Value::undefined(UndefinedReason::Element, r, object_name(obj));
}

Ref<List> Evaluator::iterate(const Value& v) {
    switch (v.kind()) {
        case Kind::List:
            // (a generator is iterated like a list: templates rarely iterate one twice)
            return v.list_ptr();
        case Kind::Dict: {
            auto l = make_list();
            l->items.reserve(v.dict().items.size());
            for (const auto& [k, val] : v.dict().items) l->items.push_back(k);
            return l;
        }
        case Kind::String: {
            auto l = make_list();
            for (auto c : utf8_chars(v.str())) l->items.push_back(Value::string(std::string(c)));
            return l;
        }
        case Kind::Undefined: {
            const UndefinedInfo* info = v.undefined_info();
            if (info && info->reason == UndefinedReason::Unsafe) raise_undefined(v);
            static const auto empty = make_list();
            return empty;
        }
        case Kind::Namespace:
        default:
            throw Failure("TypeError", "'" + type_name(v) + "' object is not iterable");
    }
}

}  // namespace cmfpipe::jinja2
