// Builtin filters that serialise a value: tojson (transformers' variant for chat templates,
// Jinja's HTML-safe one for prompty) and pprint.
#include "filter_args.hpp"
#include "json.hpp"

namespace cmfpipe::jinja2 {
namespace {

// json.dumps' indent argument: a string is used as is, a number is that many spaces (capped);
// with an indent, items are separated by "," and a newline instead of ", ".
void set_indent(JsonStyle& style, const Value* indent) {
    if (!indent || indent->is_none()) return;
    style.has_indent = true;
    if (indent->is_string())
        style.indent = indent->str();
    else
        style.indent.assign(static_cast<std::size_t>(std::max<std::int64_t>(
                                0, std::min<std::int64_t>(indent->as_int(), 1024))),
                            ' ');
    style.item_separator.assign(1, ',');  // (not = ",": GCC 12 warns falsely, -Wrestrict)
}

// transformers' override: json.dumps(x, ensure_ascii=False, indent=None, separators=None,
// sort_keys=False)
Value f_tojson_chat(Evaluator& ev, const Value& v, Args& a) {
    JsonStyle style;
    style.max_bytes = ev.settings().limits.max_string_bytes;
    style.ensure_ascii = flag(a, 0, "ensure_ascii", false);
    set_indent(style, arg(a, 1, "indent"));
    const Value* separators = arg(a, 2, "separators");
    if (separators && !separators->is_none()) {
        auto parts = ev.iterate(*separators);
        if (parts->items.size() != 2)
            throw Failure("ValueError", "separators must be a pair of strings");
        style.item_separator = soft_str(parts->items[0]);
        style.key_separator = soft_str(parts->items[1]);
    }
    style.sort_keys = flag(a, 3, "sort_keys", false);
    return str_result(ev, dumps(v, style));
}

// Jinja's own tojson: json.dumps(sort_keys=True), then <, >, &, ' escaped for HTML.
Value f_tojson_html(Evaluator& ev, const Value& v, Args& a) {
    JsonStyle style;
    style.max_bytes = ev.settings().limits.max_string_bytes;
    style.ensure_ascii = true;
    style.sort_keys = true;
    set_indent(style, arg(a, 0, "indent"));
    std::string raw = dumps(v, style), out;
    out.reserve(raw.size());
    for (char c : raw) {
        switch (c) {
            case '<':
                out += "\\u003c";
                break;
            case '>':
                out += "\\u003e";
                break;
            case '&':
                out += "\\u0026";
                break;
            case '\'':
                out += "\\u0027";
                break;
            default:
                out += c;
        }
    }
    return str_result(ev, std::move(out));
}

Value f_pprint(Evaluator&, const Value& v, Args&) {
    std::string out;
    append_repr(out, v);
    return Value::string(std::move(out));
}

}  // namespace

void add_serialising_filters(FilterTable& table) {
    table.emplace("pprint", f_pprint);
}

FilterFn tojson_filter(Profile profile) {
    return profile == Profile::ChatTemplate ? f_tojson_chat : f_tojson_html;
}

}  // namespace cmfpipe::jinja2
