// Builtin sequence filters: length, first/last, join, sort, unique, min/max, batch, slice,
// groupby, map, select/reject and friends (the lazy ones return generators, as in Jinja).
#include "filter_args.hpp"
#include "methods.hpp"

namespace cmfpipe::jinja2 {
namespace {

Value f_length(Evaluator&, const Value& v, Args&) {
    switch (v.kind()) {
        case Kind::String:
            return Value::integer(static_cast<std::int64_t>(utf8_length(v.str())));
        case Kind::List:
            if (v.list().flavor == List::Flavor::Generator)
                throw Failure("TypeError", "object of type 'generator' has no len()");
            return Value::integer(static_cast<std::int64_t>(v.list().items.size()));
        case Kind::Dict:
            return Value::integer(static_cast<std::int64_t>(v.dict().items.size()));
        case Kind::Undefined:
            return Value::integer(0);
        case Kind::Namespace:
            return Value::integer(static_cast<std::int64_t>(v.ns().attrs.size()));
        default:
            throw Failure("TypeError", "object of type '" + type_name(v) + "' has no len()");
    }
}

Value f_list(Evaluator& ev, const Value& v, Args&) {
    auto items = seq(ev, v);
    if (v.is_list() && v.list().flavor == List::Flavor::List)
        return Value::list(make_list(items->items));
    return Value::list(make_list(items->items));
}

Value f_first(Evaluator& ev, const Value& v, Args&) {
    if (v.is_string()) {
        auto cs = utf8_chars(v.str());
        if (!cs.empty()) return Value::string(std::string(cs[0]));
    } else {
        auto items = seq(ev, v);
        if (!items->items.empty()) return items->items.front();
    }
    return Value::undefined(UndefinedReason::Plain, "No first item, sequence was empty.");
}

Value f_last(Evaluator& ev, const Value& v, Args&) {
    if (v.is_list() && v.list().flavor == List::Flavor::Generator)
        throw Failure("TypeError", "'generator' object is not reversible");
    if (v.is_string()) {
        auto cs = utf8_chars(v.str());
        if (!cs.empty()) return Value::string(std::string(cs.back()));
    } else {
        auto items = seq(ev, v);
        if (!items->items.empty()) return items->items.back();
    }
    return Value::undefined(UndefinedReason::Plain, "No last item, sequence was empty.");
}

Value f_join(Evaluator& ev, const Value& v, Args& a) {
    const Value* d = arg(a, 0, "d");
    const Value* attribute = arg(a, 1, "attribute");
    std::string sep = d ? soft_str(*d) : "";
    auto parts = attribute ? attribute_parts(*attribute) : Values{};
    std::string out;
    bool first = true;
    // Held by name: a temporary in a range-for's expression dies before the loop.
    const auto sequence = seq(ev, v);
    for (const auto& item : sequence->items) {
        if (!first) out += sep;
        first = false;
        append_str(out, parts.empty() ? item : get_path(ev, item, parts));
        ev.check_string(out.size());
    }
    return Value::string(std::move(out));
}

Value f_reverse(Evaluator& ev, const Value& v, Args&) {
    if (v.is_string()) {
        auto cs = utf8_chars(v.str());
        std::string out;
        for (auto it = cs.rbegin(); it != cs.rend(); ++it) out += *it;
        return Value::string(std::move(out));
    }
    auto items = seq(ev, v)->items;
    std::reverse(items.begin(), items.end());
    return generator(std::move(items));
}

Value f_default(Evaluator&, const Value& v, Args& a) {
    const Value* def = arg(a, 0, "default_value");
    bool boolean = flag(a, 1, "boolean");
    if (v.is_undefined() || (boolean && !truthy(v))) return def ? *def : Value::string("");
    return v;
}

Value f_items(Evaluator&, const Value& v, Args&) {
    if (v.is_undefined()) return generator({});
    if (!v.is_dict()) throw Failure("TypeError", "Can only get item pairs from a mapping.");
    Values out;
    for (const auto& [k, val] : v.dict().items)
        out.push_back(Value::list(make_list({k, val}, List::Flavor::Tuple)));
    return generator(std::move(out));
}

Value f_dictsort(Evaluator&, const Value& v, Args& a) {
    bool case_sensitive = flag(a, 0, "case_sensitive");
    const Value* byv = arg(a, 1, "by");
    std::string by = byv ? soft_str(*byv) : "key";
    bool reverse = flag(a, 2, "reverse");
    if (by != "key" && by != "value")
        throw Failure("FilterArgumentError", "You can only sort by either \"key\" or \"value\"");
    if (!v.is_dict())
        throw Failure("TypeError", "'" + type_name(v) + "' object has no attribute 'items'");
    DictItems items = v.dict().items;
    int pos = by == "key" ? 0 : 1;
    std::stable_sort(items.begin(), items.end(), [&](const auto& x, const auto& y) {
        const Value& kx = pos ? x.second : x.first;
        const Value& ky = pos ? y.second : y.first;
        return reverse ? less(ignore_case(ky, case_sensitive), ignore_case(kx, case_sensitive))
                       : less(ignore_case(kx, case_sensitive), ignore_case(ky, case_sensitive));
    });
    auto l = make_list();
    for (auto& [k, val] : items)
        l->items.push_back(Value::list(make_list({k, val}, List::Flavor::Tuple)));
    return Value::list(l);
}

Value f_sort(Evaluator& ev, const Value& v, Args& a) {
    bool reverse = flag(a, 0, "reverse");
    bool case_sensitive = flag(a, 1, "case_sensitive");
    const Value* attribute = arg(a, 2, "attribute");
    std::vector<Values> paths;
    if (attribute && attribute->is_string()) {
        for (const auto& part : split_sep(attribute->str(), ",", -1, false))
            paths.push_back(attribute_parts(Value::string(part)));
    } else if (attribute && !attribute->is_none()) {
        paths.push_back(attribute_parts(*attribute));
    }
    auto items = seq(ev, v)->items;
    DictItems keyed;  // key, item
    keyed.reserve(items.size());
    for (auto& item : items) {
        Value key;
        if (paths.empty()) {
            key = ignore_case(item, case_sensitive);
        } else {
            auto k = make_list();
            for (const auto& p : paths)
                k->items.push_back(ignore_case(get_path(ev, item, p), case_sensitive));
            key = Value::list(k);
        }
        keyed.emplace_back(std::move(key), item);
    }
    std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& x, const auto& y) {
        return reverse ? less(y.first, x.first) : less(x.first, y.first);
    });
    auto l = make_list();
    for (auto& kv : keyed) l->items.push_back(std::move(kv.second));
    return Value::list(l);
}

Value f_unique(Evaluator& ev, const Value& v, Args& a) {
    bool case_sensitive = flag(a, 0, "case_sensitive");
    const Value* attribute = arg(a, 1, "attribute");
    auto parts = attribute ? attribute_parts(*attribute) : Values{};
    Values seen, out;
    // Held by name: a temporary in a range-for's expression dies before the loop.
    const auto sequence = seq(ev, v);
    for (const auto& item : sequence->items) {
        Value key = ignore_case(parts.empty() ? item : get_path(ev, item, parts), case_sensitive);
        if (std::none_of(seen.begin(), seen.end(),
                         [&](const Value& s) { return equals(s, key); })) {
            seen.push_back(key);
            out.push_back(item);
        }
    }
    return generator(std::move(out));
}

Value min_max(Evaluator& ev, const Value& v, Args& a, bool want_max) {
    bool case_sensitive = flag(a, 0, "case_sensitive");
    const Value* attribute = arg(a, 1, "attribute");
    auto parts = attribute ? attribute_parts(*attribute) : Values{};
    auto items = seq(ev, v);
    if (items->items.empty())
        return Value::undefined(UndefinedReason::Plain, "No aggregated item, sequence was empty.");
    const Value* best = &items->items[0];
    Value best_key =
        ignore_case(parts.empty() ? *best : get_path(ev, *best, parts), case_sensitive);
    for (std::size_t i = 1; i < items->items.size(); ++i) {
        Value key = ignore_case(
            parts.empty() ? items->items[i] : get_path(ev, items->items[i], parts), case_sensitive);
        if (want_max ? less(best_key, key) : less(key, best_key)) {
            best = &items->items[i];
            best_key = key;
        }
    }
    return *best;
}
Value f_min(Evaluator& ev, const Value& v, Args& a) {
    return min_max(ev, v, a, false);
}
Value f_max(Evaluator& ev, const Value& v, Args& a) {
    return min_max(ev, v, a, true);
}

Value f_batch(Evaluator& ev, const Value& v, Args& a) {
    std::int64_t n = int_param(a, 0, "linecount", 0);
    if (n <= 0) throw Failure("ValueError", "batch size must be positive");
    const Value* fill = arg(a, 1, "fill_with");
    Values out;
    auto cur = make_list();
    // Held by name: a temporary in a range-for's expression dies before the loop.
    const auto sequence = seq(ev, v);
    for (const auto& item : sequence->items) {
        if (static_cast<std::int64_t>(cur->items.size()) == n) {
            out.push_back(Value::list(cur));
            cur = make_list();
        }
        cur->items.push_back(item);
    }
    if (!cur->items.empty()) {
        if (fill && !fill->is_none())
            while (static_cast<std::int64_t>(cur->items.size()) < n) cur->items.push_back(*fill);
        out.push_back(Value::list(cur));
    }
    return generator(std::move(out));
}

Value f_slice(Evaluator& ev, const Value& v, Args& a) {
    std::int64_t slices = int_param(a, 0, "slices", 0);
    if (slices <= 0) throw Failure("ZeroDivisionError", "integer division or modulo by zero");
    ev.check_list(static_cast<std::size_t>(slices));
    const Value* fill = arg(a, 1, "fill_with");
    auto items = seq(ev, v)->items;
    std::int64_t length = static_cast<std::int64_t>(items.size());
    std::int64_t per = length / slices, extra = length % slices, offset = 0;
    Values out;
    for (std::int64_t s = 0; s < slices; ++s) {
        std::int64_t start = offset + s * per;
        if (s < extra) ++offset;
        std::int64_t end = offset + (s + 1) * per;
        auto part = make_list(Values(items.begin() + start, items.begin() + end));
        if (fill && !fill->is_none() && s >= extra) part->items.push_back(*fill);
        out.push_back(Value::list(part));
    }
    return generator(std::move(out));
}

Value f_groupby(Evaluator& ev, const Value& v, Args& a) {
    const Value* attribute = arg(a, 0, "attribute");
    if (!attribute) throw Failure("TypeError", "groupby() missing required argument 'attribute'");
    const Value* def = arg(a, 1, "default");
    bool case_sensitive = flag(a, 2, "case_sensitive");
    auto parts = attribute_parts(*attribute);
    DictItems keyed;
    // Held by name: a temporary in a range-for's expression dies before the loop.
    const auto sequence = seq(ev, v);
    for (const auto& item : sequence->items)
        keyed.emplace_back(ignore_case(get_path(ev, item, parts, def), case_sensitive), item);
    std::stable_sort(keyed.begin(), keyed.end(),
                     [](const auto& x, const auto& y) { return less(x.first, y.first); });
    auto out = make_list();
    for (std::size_t i = 0; i < keyed.size();) {
        auto group = make_list();
        std::size_t j = i;
        while (j < keyed.size() && equals(keyed[j].first, keyed[i].first))
            group->items.push_back(keyed[j++].second);
        Value key = keyed[i].first;
        if (!case_sensitive) key = get_path(ev, group->items[0], parts, def);
        out->items.push_back(
            Value::list(make_list({key, Value::list(group)}, List::Flavor::Tuple)));
        i = j;
    }
    return Value::list(out);
}

Value f_attr(Evaluator& ev, const Value& v, Args& a) {
    const Value* name = arg(a, 0, "name");
    if (!name) throw Failure("TypeError", "do_attr() missing required argument 'name'");
    // Python getattr only: a dict's keys are not attributes
    if (v.is_dict()) {
        std::string n = soft_str(*name);
        if (method_kind(v, n, ev.containers_immutable()) == MethodKind::None)
            return Value::undefined(UndefinedReason::Attribute, n, "dict object");
    }
    return ev.getattr(v, soft_str(*name));
}

Value f_map(Evaluator& ev, const Value& v, Args& a) {
    if (!truthy(v)) return generator({});
    auto items = seq(ev, v);
    Values out;
    out.reserve(items->items.size());
    ev.tick(items->items.size());
    if (a.positional.empty() && a.kw("attribute")) {
        auto parts = attribute_parts(*a.kw("attribute"));
        const Value* def = a.kw("default");
        for (const auto& item : items->items) out.push_back(get_path(ev, item, parts, def));
        return generator(std::move(out));
    }
    if (a.positional.empty())
        throw Failure("FilterArgumentError", "map requires a filter argument");
    std::string name = soft_str(a.positional[0]);
    Args rest;
    rest.positional.assign(a.positional.begin() + 1, a.positional.end());
    rest.keyword = a.keyword;
    for (const auto& item : items->items) {
        Args call = rest;
        out.push_back(ev.apply_filter(name, item, call));
    }
    return generator(std::move(out));
}

Value select_or_reject(Evaluator& ev, const Value& v, Args& a, bool select, bool by_attr) {
    if (!truthy(v)) return generator({});
    Values parts;
    std::size_t off = 0;
    if (by_attr) {
        if (a.positional.empty())
            throw Failure("FilterArgumentError", "Missing parameter for attribute name");
        parts = attribute_parts(a.positional[0]);
        off = 1;
    }
    bool has_test = a.positional.size() > off;
    std::string test = has_test ? soft_str(a.positional[off]) : std::string();
    Args rest;
    if (has_test)
        rest.positional.assign(a.positional.begin() + static_cast<std::ptrdiff_t>(off) + 1,
                               a.positional.end());
    rest.keyword = a.keyword;
    auto items = seq(ev, v);
    ev.tick(items->items.size());
    Values out;
    TestFn fn = nullptr;  // looked up at the first item: Jinja only fails on a test it runs
    for (const auto& item : items->items) {
        Value subject = by_attr ? get_path(ev, item, parts) : item;
        bool ok;
        if (has_test) {
            if (!fn) fn = ev.test_named(test);
            ok = fn(ev, subject, rest);
        } else {
            ok = truthy(subject);
        }
        if (ok == select) out.push_back(item);
    }
    return generator(std::move(out));
}
Value f_select(Evaluator& ev, const Value& v, Args& a) {
    return select_or_reject(ev, v, a, true, false);
}
Value f_reject(Evaluator& ev, const Value& v, Args& a) {
    return select_or_reject(ev, v, a, false, false);
}
Value f_selectattr(Evaluator& ev, const Value& v, Args& a) {
    return select_or_reject(ev, v, a, true, true);
}
Value f_rejectattr(Evaluator& ev, const Value& v, Args& a) {
    return select_or_reject(ev, v, a, false, true);
}

}  // namespace

void add_sequence_filters(FilterTable& table) {
    table.emplace("attr", f_attr);
    table.emplace("batch", f_batch);
    table.emplace("count", f_length);
    table.emplace("d", f_default);
    table.emplace("default", f_default);
    table.emplace("dictsort", f_dictsort);
    table.emplace("first", f_first);
    table.emplace("groupby", f_groupby);
    table.emplace("items", f_items);
    table.emplace("join", f_join);
    table.emplace("last", f_last);
    table.emplace("length", f_length);
    table.emplace("list", f_list);
    table.emplace("map", f_map);
    table.emplace("max", f_max);
    table.emplace("min", f_min);
    table.emplace("reject", f_reject);
    table.emplace("rejectattr", f_rejectattr);
    table.emplace("reverse", f_reverse);
    table.emplace("select", f_select);
    table.emplace("selectattr", f_selectattr);
    table.emplace("slice", f_slice);
    table.emplace("sort", f_sort);
    table.emplace("unique", f_unique);
}

}  // namespace cmfpipe::jinja2
