// Reading tool calls in the analysed format (see tool_call_reader.hpp).
#include "tool_call_reader.hpp"

#include <algorithm>
#include <map>

#include "call_cursor.hpp"
#include "cmfpipe/json_parse.hpp"
#include "diff_split.hpp"
#include "expression_call_reader.hpp"
#include "json_extent.hpp"
#include "python_literal.hpp"

namespace cmfpipe::chat_template {
namespace {

// A string value of a tagged argument. Where the template writes it between newlines
// (<parameter=code>\nVALUE\n</parameter>), one newline on each side is markup.
std::string tagged_string(std::string_view raw, bool own_lines) {
    if (!own_lines) return std::string(raw);
    if (raw.starts_with('\n')) raw.remove_prefix(1);
    if (raw.ends_with('\n')) raw.remove_suffix(1);
    return std::string(raw);
}

// Whether python_literal_as_json would change any of text[0, end): a single quote, a
// True/False/None, or inside a double-quoted string a raw newline or an escaped single quote.
bool python_changes_before(std::string_view text, std::size_t end) {
    end = std::min(end, text.size());
    bool in_string = false;
    for (std::size_t i = 0; i < end; ++i) {
        const char c = text[i];
        if (c == '\'') return true;
        if (in_string) {
            if (c == '\n') return true;
            if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\'') return true;
            if (c == '\\')
                ++i;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == 'T' || c == 'F' || c == 'N') {
            const std::string_view rest = text.substr(i);
            if (rest.starts_with("True") || rest.starts_with("False") || rest.starts_with("None"))
                return true;
        }
    }
    return false;
}

// A JSON (or Python) literal as JSON, or nothing. The Python rewrite, a pass over the whole
// text, is tried only where it could change the JSON parse's outcome: where it changes some of
// what that parse read (up to the character it failed at), since the parse of the rewrite reads
// the same bytes to there and fails there too; nesting too deep stays too deep. Nested call
// candidates (`<tool_calls>[{` repeated, then its closers) each fail in their first bytes and
// would each rewrite the rest of the completion.
std::optional<Json> literal_value(std::string_view raw) {
    raw = trim(raw);
    if (raw.empty()) return std::nullopt;
    std::size_t failed_at = 0;
    auto parsed = try_parse_json_with_offset(raw, failed_at);
    if (parsed.value) return std::move(*parsed.value);
    if (parsed.too_deep || !python_changes_before(raw, failed_at + 1)) return std::nullopt;
    if (const auto converted = python_literal_as_json(raw)) {
        if (auto reparsed = try_parse_json(*converted); reparsed.value)
            return std::move(*reparsed.value);
    }
    return std::nullopt;
}

// The value at a dotted path ("function.name") of a call object, or nullptr.
const Json* field(const Json& object, std::string_view path) {
    const Json* at = &object;
    while (!path.empty()) {
        const std::size_t dot = path.find('.');
        const std::string key(path.substr(0, dot));
        if (!at->is_object()) return nullptr;
        const auto it = at->find(key);
        if (it == at->end()) return nullptr;
        at = &*it;
        path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
    }
    return at;
}

std::string_view last_key(std::string_view path) {
    const std::size_t dot = path.rfind('.');
    return dot == std::string_view::npos ? path : path.substr(dot + 1);
}

// What follows "key": in JSON text that may be cut off, or "".
std::string_view partial_value_text(std::string_view text, std::string_view key) {
    if (key.empty()) return {};
    const std::string quoted = "\"" + std::string(key) + "\"";
    std::size_t at = text.find(quoted);
    if (at == std::string_view::npos) return {};
    at += quoted.size();
    while (at < text.size() && (is_space(text[at]) || text[at] == ':')) ++at;
    return text.substr(at);
}

// The string value of "key": "..." in JSON text that may be cut off, or "".
std::string partial_string_field(std::string_view text, std::string_view key) {
    const std::string_view value = partial_value_text(text, key);
    if (!value.starts_with('"')) return "";
    const std::size_t end = value.find('"', 1);
    return end == std::string_view::npos ? "" : std::string(value.substr(1, end - 1));
}

// Whether a bracketed value can be a call object or a list of them: `{` then a quoted key (or
// `}`), or `[` then such an object. Anything else would fail to parse or to be a call, only
// slower (a completion of `[TOOL_CALLS]` repeated tries every one, and of `functools[{` nested
// with its closers every `[{[{`).
bool may_hold_call_objects(std::string_view json) {
    std::size_t i = 0;
    const auto next = [&] {
        ++i;
        while (i < json.size() && is_space(json[i])) ++i;
        return i < json.size() ? json[i] : '\0';
    };
    if (json[0] == '[' && next() != '{') return false;
    const char key = next();
    return key == '"' || key == '\'' || key == '}';
}

class Reader {
  public:
    Reader(const ToolAnalysis& format, const ToolSet& tools, std::string_view text)
        : f_(format), tools_(tools), text_(text), finder_(text), extents_(text) {}

    // Shared with the search for the section's trigger, so it too reads the text once.
    Finder& finder() { return finder_; }

    // Where the JSON value that opens at `at` ends (one past its closer), or at + 1 where it
    // does not close.
    std::size_t json_end(std::size_t at) {
        const auto end = extents_.extent(at);
        return end ? *end : at + 1;
    }

    // The section beginning at `start` (where its trigger was found). A template may write its
    // whole section once per call (InternLM2's <|action_start|><|plugin|>{...}<|action_end|>
    // twice): where parallel calls may follow, a section that opens right after one's end holds
    // more calls of the same turn.
    CallSection section(std::size_t start, bool parallel) {
        CallSection out;
        out.start = start;
        Cursor c(text_, start, finder_);
        for (bool first = true;; first = false) {
            const std::size_t section_at = c.at();
            Match opened = c.marker(f_.section_start);
            // A model may leave the section's start out and begin with a call's (Kimi K2
            // Thinking).
            if (first && opened == Match::no && !f_.per_call_start.empty() &&
                c.rest().starts_with(f_.per_call_start))
                opened = Match::yes;
            if (opened == Match::no && first) return out;
            if (opened != Match::yes && !first) {
                c.move_to(section_at);  // what follows the section is not another one (yet)
                break;
            }
            if (opened == Match::truncated) return truncated(out, ParsedCall{});
            const std::size_t read_before = out.calls.size();
            if (const auto stop = calls_of_section(c, out, parallel); stop && stop->truncated)
                return out;
            if (out.calls.size() == read_before) {
                // An opened section with nothing readable in it is text, unless the text ends
                // there.
                if (!f_.section_start.empty() && c.at_end_after_space())
                    return truncated(out, ParsedCall{});
                if (first) return out;
                c.move_to(section_at);
                break;
            }
            // Text after the calls without the section's end: the calls stand, the rest is text.
            // Only a section with both markers can be told to open again.
            if (c.marker(f_.section_end) != Match::yes || !parallel || f_.section_start.empty() ||
                f_.section_end.empty())
                break;
        }
        out.status = CallSection::Status::read;
        out.end = c.at();
        return out;
    }

  private:
    CallSection& truncated(CallSection& out, ParsedCall partial) {
        out.status = CallSection::Status::truncated;
        out.end = text_.size();
        out.unfinished = std::move(partial);
        return out;
    }

    // The calls of one opened section into `out.calls`; a truncated stop has made `out`
    // truncated.
    std::optional<Stop> calls_of_section(Cursor& c, CallSection& out, bool parallel) {
        for (;;) {
            const std::size_t before = c.at();
            if (c.at_end_after_space() && !out.calls.empty()) return std::nullopt;
            ParsedCall partial;
            std::vector<ParsedCall> calls;
            const std::optional<Stop> stop = call(c, calls, partial, parallel);
            if (stop && stop->truncated) {
                out.calls.insert(out.calls.end(), calls.begin(), calls.end());
                truncated(out, std::move(partial));
                return stop;
            }
            if (stop) {
                c.move_to(before);
                return stop;
            }
            out.calls.insert(out.calls.end(), calls.begin(), calls.end());
            if (!parallel || c.at() == before) return std::nullopt;
        }
    }

    // One call (or, for a JSON array, several) into `calls`; nothing when read, else why not,
    // with what was read of a call cut off in `partial`.
    std::optional<Stop> call(Cursor& c, std::vector<ParsedCall>& calls, ParsedCall& partial,
                             bool parallel) {
        const Match opened = c.marker(f_.per_call_start);
        if (opened == Match::no) return Stop{};
        if (opened == Match::truncated) return Stop{true};
        std::optional<Stop> stop;
        if (f_.format == ToolFormat::json_native)
            stop = json_calls(c, calls, partial, parallel);
        else if (f_.format == ToolFormat::call_expression)
            stop = ExpressionCallReader(f_, tools_, text_).read(c, calls, partial);
        else
            stop = tagged_call(c, calls, partial);
        if (stop) return stop;
        c.marker(f_.per_call_end);  // optional at the end: the model may stop before it
        return std::nullopt;
    }

    // A JSON call, and where more may follow, the calls a model writes after it without
    // repeating the call's own opener: objects one after another (on lines of their own, or
    // with a comma between: Phi-4-mini's {...},{...} without a list's brackets). A list of them
    // is one JSON value, read by json_call.
    std::optional<Stop> json_calls(Cursor& c, std::vector<ParsedCall>& calls, ParsedCall& partial,
                                   bool parallel) {
        if (auto stop = json_call(c, calls, partial)) return stop;
        if (!parallel) return std::nullopt;
        for (;;) {
            Cursor next = c;
            next.skip_space();
            const bool comma = next.rest().starts_with(',');
            if (comma) next.move_to(next.at() + 1);
            next.skip_space();
            // A comma the text ends with: the next call is still to come (a stream shows no ",").
            if (comma && next.rest().empty()) return Stop{true};
            if (!next.rest().starts_with('{') && !next.rest().starts_with('[')) break;
            std::vector<ParsedCall> more;
            ParsedCall more_partial;
            const std::optional<Stop> stop = json_call(next, more, more_partial);
            if (stop && stop->truncated) {
                calls.insert(calls.end(), more.begin(), more.end());
                partial = std::move(more_partial);
                return stop;
            }
            if (stop) break;  // not a call: text, or the next opener's business
            calls.insert(calls.end(), more.begin(), more.end());
            c = next;
        }
        return std::nullopt;
    }

    std::optional<Stop> json_call(Cursor& c, std::vector<ParsedCall>& calls, ParsedCall& partial) {
        c.skip_space();
        const std::string_view rest = c.rest();
        if (rest.empty()) return Stop{true};
        if (rest[0] != '{' && rest[0] != '[') return Stop{};
        const auto extent = extents_.extent(c.at());
        if (!extent) {
            if (!f_.function_name_is_key && rest.size() > 64) {
                // Not a call of this format unless it could still become one: its name's key
                // follows (looked up once for all candidates; the fields below are read once,
                // as a cut-off call ends the search).
                const std::string key = "\"" + std::string(last_key(f_.name_field)) + "\"";
                if (finder_.find(key, c.at()) == std::string_view::npos) return Stop{};
            }
            partial.name =
                f_.function_name_is_key ? "" : partial_string_field(rest, last_key(f_.name_field));
            partial.id = partial_string_field(rest, last_key(f_.id_field));
            partial.arguments = std::string(partial_value_text(rest, last_key(f_.arguments_field)));
            return Stop{true};
        }
        const std::string_view json = rest.substr(0, *extent - c.at());
        if (!may_hold_call_objects(json)) return Stop{};  // a cheap no before a parse's
        std::optional<Json> value = literal_value(json);
        if (!value) return Stop{};
        std::vector<Json> objects;
        if (value->is_array()) {
            for (Json& element : *value) objects.push_back(std::move(element));
        } else {
            objects.push_back(std::move(*value));
        }
        if (objects.empty()) return Stop{};
        for (const Json& object : objects) {
            auto read = json_object_call(object);
            if (!read) return Stop{};
            calls.push_back(std::move(*read));
        }
        c.move_to(*extent);
        return std::nullopt;
    }

    std::optional<ParsedCall> json_object_call(const Json& object) const {
        if (!object.is_object()) return std::nullopt;
        ParsedCall out;
        const Json* arguments = nullptr;
        if (f_.function_name_is_key) {
            const Json* holder = f_.name_field.empty() ? &object : field(object, f_.name_field);
            if (!holder || !holder->is_object() || holder->size() != 1) return std::nullopt;
            out.name = holder->begin().key();
            arguments = &holder->begin().value();
        } else {
            const Json* name = field(object, f_.name_field);
            if (!name || !name->is_string()) return std::nullopt;
            out.name = name->get<std::string>();
            arguments = field(object, f_.arguments_field);
        }
        if (!f_.id_field.empty()) {
            if (const Json* id = field(object, f_.id_field)) {
                out.id = id->is_string() ? id->get<std::string>() : id->dump();
            }
        }
        if (!arguments)
            out.arguments = "{}";
        else if (arguments->is_string())
            out.arguments = arguments->get<std::string>();  // JSON text inside the JSON
        else
            out.arguments = arguments->dump();
        return out;
    }

    // The id between its markers, where the format writes one at `position`.
    std::optional<Stop> call_id(Cursor& c, CallIdPosition position, ParsedCall& call) {
        if (f_.id_position != position) return std::nullopt;
        // An id right after the call's opener has the opener for its prefix (<|call|>ID<|name|>):
        // call() read it already, and a model writes it once.
        const bool opener_read =
            position == CallIdPosition::pre_function_name && f_.id_prefix == f_.per_call_start;
        const Match opened = opener_read ? Match::yes : c.marker(f_.id_prefix);
        if (opened == Match::truncated) return Stop{true};
        if (opened == Match::no) return std::nullopt;  // the id is optional
        if (f_.id_suffix.empty()) return std::nullopt;
        const auto id = c.until(f_.id_suffix);
        if (!id) return Stop{true};
        call.id = std::string(trim(*id));
        return std::nullopt;
    }

    // The function's name after name_prefix: the longest tool name followed by name_suffix, else
    // (a tool the caller did not list) the text up to name_suffix when it is one word.
    std::optional<Stop> function_name(Cursor& c, ParsedCall& call) {
        const Match opened = c.marker(f_.name_prefix);
        if (opened == Match::truncated) return Stop{true};
        if (opened == Match::no) return Stop{};
        const std::string_view rest = c.rest();
        std::string_view name = tools_.name_at(rest);
        // A tool's name followed by more of a word is the start of another name.
        if (name.size() < rest.size() && is_word_char(rest[name.size()])) name = {};
        const auto suffix_after = [&](std::size_t n) {
            Cursor probe(c.text(), c.at() + n, finder_);
            return probe.marker(f_.name_suffix);
        };
        // A name the text ends in, or ends just after, may be the start of a longer one.
        if (!name.empty() &&
            (name.size() == rest.size() || suffix_after(name.size()) == Match::truncated))
            return Stop{true};
        if (!name.empty() && suffix_after(name.size()) == Match::yes) {
            call.name = std::string(name);
            c.move_to(c.at() + name.size());
        } else if (!f_.name_suffix.empty()) {
            const std::size_t found = finder_.find(f_.name_suffix, c.at());
            const std::size_t end = found == std::string_view::npos ? found : found - c.at();
            if (end == std::string_view::npos) {
                return rest.size() < 128 && rest.find('\n') == std::string_view::npos
                           ? std::optional<Stop>(Stop{true})
                           : std::optional<Stop>(Stop{});
            }
            const std::string_view word = trim(rest.substr(0, end));
            if (word.empty() || word.find_first_of(" \n\t<>{}[]\"") != std::string_view::npos)
                return Stop{};
            call.name = std::string(word);
            c.move_to(c.at() + end);
        } else {
            if (tools_.name_prefix(rest) || rest.empty()) return Stop{true};
            return Stop{};
        }
        const Match suffix = c.marker(f_.name_suffix);
        if (suffix == Match::truncated) return Stop{true};
        return std::nullopt;
    }

    std::optional<Stop> tagged_call(Cursor& c, std::vector<ParsedCall>& calls,
                                    ParsedCall& partial) {
        ParsedCall call;
        if (auto stop = call_id(c, CallIdPosition::pre_function_name, call))
            return partial = call, stop;
        c.skip_space();
        const std::size_t word = c.at();
        if (auto stop = function_name(c, call)) return partial = call, stop;
        if (f_.id_position == CallIdPosition::wraps_function_name && !f_.id_suffix.empty()) {
            // The id is the whole word the name is written in (functions.NAME:0).
            if (!c.until(f_.id_suffix)) return partial = call, Stop{true};
            call.id = std::string(trim(text_.substr(word, c.at() - f_.id_suffix.size() - word)));
        }
        if (auto stop = call_id(c, CallIdPosition::between_function_and_args, call))
            return partial = call, stop;
        std::optional<Stop> stop = f_.format == ToolFormat::tag_with_json
                                       ? json_arguments(c, call)
                                       : tagged_arguments(c, call);
        if (stop) {
            partial = std::move(call);
            return stop;
        }
        const Match closed = c.marker(f_.function_close);
        if (closed == Match::truncated) {
            partial = std::move(call);
            return Stop{true};
        }
        if (auto stop = call_id(c, CallIdPosition::post_args, call)) return partial = call, stop;
        calls.push_back(std::move(call));
        return std::nullopt;
    }

    std::optional<Stop> json_arguments(Cursor& c, ParsedCall& call) {
        const Match opened = c.marker(f_.arguments_start);
        if (opened == Match::truncated) return Stop{true};
        c.skip_space();
        const std::string_view rest = c.rest();
        if (rest.empty()) return Stop{true};
        if (rest[0] != '{') {
            call.arguments = "{}";  // a call written without arguments
            return std::nullopt;
        }
        const auto extent = extents_.extent(c.at());
        if (!extent) {
            call.arguments = std::string(rest);
            return Stop{true};
        }
        const std::string_view json = rest.substr(0, *extent - c.at());
        if (f_.python_dicts) {
            const auto converted = python_literal_as_json(json);
            call.arguments = converted ? *converted : std::string(json);
        } else {
            call.arguments = std::string(json);
        }
        c.move_to(*extent);
        if (c.marker(f_.arguments_end) == Match::truncated) return Stop{true};
        return std::nullopt;
    }

    // Where an argument's value ends when no marker closes values: at the next argument or the
    // call's end, whichever comes first.
    std::size_t value_end(std::size_t from) {
        std::size_t end = text_.size();
        for (const std::string* m : {&f_.argument_name_prefix, &f_.arguments_end,
                                     &f_.function_close, &f_.per_call_end, &f_.section_end}) {
            if (m->empty()) continue;
            end = std::min(end, finder_.find(*m, from));
        }
        return end;
    }

    // The argument's name up to argument_name_suffix. A suffix that goes on inside the tag after
    // the name (DeepSeek V3.2's `" string="true">`) has attributes that differ by the value's
    // type: the name ends at the suffix's first character, the tag at its last.
    std::optional<std::string_view> argument_name(Cursor& c) {
        const std::string_view suffix = f_.argument_name_suffix;
        if (suffix.empty()) return c.until("\n");
        const std::size_t space = suffix.find(' ');
        if (space == std::string_view::npos || suffix.back() != '>') return c.until(suffix);
        const auto name = c.until(suffix.substr(0, 1));
        if (!name || !c.until(">")) return std::nullopt;
        return name;
    }

    std::optional<Stop> tagged_arguments(Cursor& c, ParsedCall& call) {
        Json arguments = Json::object();
        const auto unfinished = [&]() {
            std::string text = arguments.dump();
            text.pop_back();  // open: what follows was not written yet
            call.arguments = std::move(text);
            return Stop{true};
        };
        const Match opened = c.marker(f_.arguments_start);
        if (opened == Match::truncated) return unfinished();
        while (!f_.argument_name_prefix.empty()) {
            const Match named = c.marker(f_.argument_name_prefix);
            if (named == Match::truncated) return unfinished();
            if (named == Match::no) break;
            const auto name = argument_name(c);
            if (!name) return unfinished();
            if (c.marker(f_.argument_value_prefix) == Match::truncated) return unfinished();
            std::string_view raw;
            static constexpr std::string_view cdata_open = "<![CDATA[", cdata_close = "]]>";
            if (!f_.argument_value_suffix.empty() && c.rest().starts_with(cdata_open)) {
                // An XML CDATA section holds the value as it is, markup included (MiniCPM).
                const std::string_view inside = c.rest().substr(cdata_open.size());
                const std::size_t close = inside.find(cdata_close);
                if (close == std::string_view::npos) return unfinished();
                raw = inside.substr(0, close);
                c.move_to(c.at() + cdata_open.size() + close + cdata_close.size());
                if (c.marker(f_.argument_value_suffix) == Match::truncated) return unfinished();
            } else if (!f_.argument_value_suffix.empty()) {
                const auto value = c.until(f_.argument_value_suffix);
                if (!value) return unfinished();
                raw = *value;
            } else {
                const std::size_t end = value_end(c.at());
                if (end == text_.size()) return unfinished();
                raw = text_.substr(c.at(), end - c.at());
                c.move_to(end);
            }
            const std::string key(trim(*name));
            if (tools_.string_parameter(call.name, key)) {
                arguments[key] = tagged_string(raw, f_.value_on_own_lines);
            } else if (auto value = literal_value(raw)) {
                arguments[key] = std::move(*value);
            } else {
                arguments[key] = tagged_string(raw, f_.value_on_own_lines);
            }
            c.marker(f_.argument_separator);
        }
        if (c.marker(f_.arguments_end) == Match::truncated) return unfinished();
        call.arguments = arguments.dump();
        return std::nullopt;
    }

    const ToolAnalysis& f_;
    const ToolSet& tools_;
    std::string_view text_;
    Finder finder_;
    JsonExtents extents_;
};

// What opens the first call: the section's marker, else the call's, else the function's; JSON
// calls without markers open with their bracket.
std::string_view trigger(const ToolAnalysis& f) {
    for (const std::string* m : {&f.section_start, &f.per_call_start}) {
        if (!m->empty()) return *m;
    }
    if (f.format != ToolFormat::json_native && !f.id_prefix.empty() &&
        f.id_position == CallIdPosition::pre_function_name)
        return f.id_prefix;
    if (f.format != ToolFormat::json_native) return f.name_prefix;
    return "";
}

}  // namespace

CallSection find_call_section(const ToolAnalysis& format, const ToolSet& tools,
                              std::string_view text, std::size_t from, bool parallel) {
    Reader reader(format, tools, text);
    const std::string_view opener = trigger(format);
    while (from < text.size()) {
        std::size_t at;
        if (!opener.empty()) {
            at = reader.finder().find(opener, from);
            if (opener == format.section_start && !format.per_call_start.empty())
                at = std::min(at, reader.finder().find(format.per_call_start, from));
        } else if (format.format == ToolFormat::json_native) {
            // Bare JSON calls: a bracket at the start of a line (or anywhere, where the template
            // writes a call right after the text).
            at = text.find_first_of(format.calls_in_array ? "[" : "{", from);
            while (at != std::string_view::npos && !format.calls_follow_text) {
                std::size_t line = at;
                while (line > 0 && (text[line - 1] == ' ' || text[line - 1] == '\t')) --line;
                if (line == 0 || text[line - 1] == '\n') break;
                at = text.find_first_of(format.calls_in_array ? "[" : "{", at + 1);
            }
        } else if (bare_call_list(format)) {
            at = next_bare_call_list(text, from);  // [f(a=1)] with no marker
        } else {
            return {};
        }
        if (at == std::string_view::npos) return {};
        CallSection section = reader.section(at, parallel);
        if (section.status != CallSection::Status::none) return section;
        // JSON in the text that is no call: the objects inside it are none either (and trying
        // each of them would read nested text again and again).
        from =
            opener.empty() && format.format == ToolFormat::json_native && format.calls_follow_text
                ? reader.json_end(at)
                : at + 1;
    }
    return {};
}

}  // namespace cmfpipe::chat_template
