// The tool-call format and its markers (see analysis_steps.hpp).
#include <algorithm>
#include <string>

#include "analysis_steps.hpp"
#include "diff_split.hpp"
#include "json_extent.hpp"
#include "tool_json_fields.hpp"

namespace cmfpipe::chat_template {
namespace {

constexpr auto npos = std::string_view::npos;

// A needle at `at` in JSON context: quoted, and the quote after an opening bracket, a colon or
// a comma (a key or a value of a JSON object or array).
bool in_json(std::string_view text, std::size_t at, std::size_t length) {
    if (at == 0 || at + length >= text.size()) return false;
    const char quote = text[at - 1];
    if ((quote != '"' && quote != '\'') || text[at + length] != quote) return false;
    std::size_t i = at - 1;
    while (i > 0 && trim(text.substr(i - 1, 1)).empty()) --i;
    return i > 0 &&
           (text[i - 1] == '{' || text[i - 1] == ':' || text[i - 1] == ',' || text[i - 1] == '[');
}

// The outermost JSON object or array of `text` that holds position `at`: [begin, end).
std::optional<std::pair<std::size_t, std::size_t>> json_around(std::string_view text,
                                                               std::size_t at) {
    for (std::size_t i = 0; i < at; ++i) {
        if (text[i] != '{' && text[i] != '[') continue;
        if (const auto end = json_extent(text, i); end && *end > at) return std::pair{i, *end};
    }
    return std::nullopt;
}

ProbeCall call_with(std::string_view function, std::string_view id = needle::id_first) {
    ProbeCall call;
    call.function = function;
    call.id = id;
    return call;
}

// What a diff's `left` side shows around `needle` (a name that differs between the two
// renders): the text before and after it, trimmed.
std::pair<std::string, std::string> around(std::string_view left, std::string_view name) {
    const std::size_t at = left.find(name);
    if (at == npos) return {};
    return {std::string(trim(left.substr(0, at))),
            std::string(trim(left.substr(at + name.size())))};
}

// Outer markers: the text before the function name (and its prefix) and after the arguments,
// paired from the outside in: the section's markers, then the per-call ones; what remains
// after the arguments closes the function.
// How many markers open the call before its arguments: the openers, and a name prefix that opens
// a tag (<function=, <invoke name=") its closers close.
std::size_t opened(const std::vector<std::string>& openers, std::string_view name_prefix) {
    const bool tag = name_prefix.starts_with('<') && name_prefix.find('>') == npos;
    return openers.size() + (tag ? 1 : 0);
}

// `turn_end_replaced`: the calls turn does not end as a text turn does (the diff took the text
// turn's end away). Its last marker, where it closes nothing the call opened, is what the template
// writes after the calls in the turn end's stead (Gemma 4 opens the tool's response, Llama 3.1
// ends with <|eom_id|>): no call marker. (A section's end that stands last, as in a template that
// leaves the turn's end to the model's end of sequence, closes the section's start.)
void outer_markers(std::string_view section, std::size_t open_end, std::size_t close_begin,
                   const ReasoningAnalysis& reasoning, const std::string& turn_end,
                   bool turn_end_replaced, ToolAnalysis& t) {
    const std::string_view opening = trim(section.substr(0, open_end));
    const std::string_view closing = trim(section.substr(close_begin));
    std::vector<std::string> openers = bracketed_markers(opening);
    if (openers.empty() && !opening.empty()) openers.emplace_back(opening);
    // An empty reasoning block the template writes before the calls is not a tool marker.
    std::erase_if(openers,
                  [&](const std::string& m) { return m == reasoning.start || m == reasoning.end; });
    std::vector<std::string> closers = bracketed_markers(closing);
    if (closers.empty() && !closing.empty()) closers.emplace_back(closing);
    if (!openers.empty()) t.section_start = openers.front();
    if (openers.size() > 1) t.per_call_start = openers[1];
    // The turn's own end (Nemotron ends a call's turn as it ends a text turn) is not a tool marker.
    if (!closers.empty() && closers.back() == turn_end) {
        closers.pop_back();
    } else if (turn_end_replaced && closers.size() > opened(openers, t.name_prefix) &&
               trim(closing).ends_with(closers.back())) {
        t.after_calls = closers.back();
        closers.pop_back();
    }
    if (!closers.empty() && !t.section_start.empty()) {
        t.section_end = closers.back();
        closers.pop_back();
    }
    if (!closers.empty() && !t.per_call_start.empty()) {
        t.per_call_end = closers.back();
        closers.pop_back();
    }
    for (const std::string& c : closers) t.function_close += c;
    // Text that is no bracketed marker between the arguments and the call's end closes the
    // function (the fence of DeepSeek V3's ```json ... ```<|call_end|>).
    const std::string& call_end = t.per_call_end.empty() ? t.section_end : t.per_call_end;
    const std::size_t end_at = call_end.empty() ? npos : closing.find(call_end);
    if (t.function_close.empty() && end_at != npos)
        t.function_close = trim(closing.substr(0, end_at));
}

// T3: func_alpha vs func_beta: the markup around the function name. A bare name (no markup in
// the diff) takes the word glued before it ("functions." of functions.name:0).
void function_name_markers(const TemplateProbe& probe, const std::string& one, ToolAnalysis& t) {
    const auto beta = probe.render(calls_turn({call_with(needle::function_second)}), false);
    if (!beta) return;
    const DiffSplit d = diff_split(one, *beta);
    std::tie(t.name_prefix, t.name_suffix) = around(d.left, needle::function_first);
    // The name alone in an element of its own: <name>f</name>.
    const std::string open = trailing_marker(d.prefix), close = leading_marker(d.suffix);
    if (t.name_prefix.empty() && t.name_suffix.empty() && open.size() > 2 &&
        close == "</" + open.substr(1)) {
        t.name_prefix = open;
        t.name_suffix = close;
        return;
    }
    if (t.name_prefix.empty()) {
        const std::string_view head = d.prefix;
        const std::size_t cut = head.find_last_of(">] \n");
        t.name_prefix = cut == npos ? std::string(head) : std::string(head.substr(cut + 1));
    }
    if (t.name_suffix.empty()) {
        // Up to the arguments: their JSON (tag_with_json) or their first marker.
        const std::string_view tail = d.suffix;
        const std::size_t stop =
            t.format == ToolFormat::tag_with_json ? tail.find('{') : tail.find_first_of("<[");
        t.name_suffix = trim(tail.substr(0, stop));
    }
}

// T4 (tag_with_tagged): arg_first vs arg_second as the argument's name: the markup around a
// name, then what stands before and after the value.
void argument_markers(const TemplateProbe& probe, const std::string& one, ToolAnalysis& t) {
    ProbeCall renamed;
    renamed.arguments.clear();
    renamed.arguments.emplace_back(needle::argument_second, needle::value_first);
    const auto other = probe.render(calls_turn({renamed}), false);
    if (!other) return;
    const DiffSplit d = diff_split(one, *other);
    std::tie(t.argument_name_prefix, t.argument_name_suffix) =
        around(d.left, needle::argument_first);
    if (t.argument_name_prefix.empty()) {
        const std::vector<std::string> before = bracketed_markers(d.prefix);
        if (!before.empty() && trim(d.prefix).ends_with(before.back()))
            t.argument_name_prefix = before.back();
    }
    if (t.argument_name_suffix.empty()) t.argument_name_suffix = leading_marker(d.suffix);

    const std::size_t name_at = one.rfind(needle::argument_first);
    const std::size_t value_at = one.find(needle::value_first, name_at);
    if (name_at == npos || value_at == npos) return;
    std::string_view between =
        std::string_view(one).substr(name_at + needle::argument_first.size(),
                                     value_at - name_at - needle::argument_first.size());
    between = trim(between);
    if (between.starts_with(t.argument_name_suffix))
        between = trim(between.substr(t.argument_name_suffix.size()));
    t.argument_value_prefix = between;
    t.argument_value_suffix =
        leading_marker(std::string_view(one).substr(value_at + needle::value_first.size()));
}

// T5 (tag formats): one argument vs two: what stands between the first value's end and the
// second argument's name.
void argument_separator(const TemplateProbe& probe, ToolAnalysis& t) {
    ProbeCall two;
    two.arguments.emplace_back(needle::argument_second, needle::value_second);
    const auto text = probe.render(calls_turn({two}), false);
    if (!text) return;
    const std::size_t first_end = text->find(needle::value_first);
    const std::size_t second = text->find(needle::argument_second, first_end);
    if (first_end == npos || second == npos) return;
    std::string_view between = std::string_view(*text).substr(
        first_end + needle::value_first.size(), second - first_end - needle::value_first.size());
    between = trim(between);
    if (between.starts_with(t.argument_value_suffix))
        between = trim(between.substr(t.argument_value_suffix.size()));
    if (between.ends_with(t.argument_name_prefix))
        between = trim(between.substr(0, between.size() - t.argument_name_prefix.size()));
    t.argument_separator = between;
}

// T6 (tag_with_tagged): no argument vs one: markup that holds the arguments as a whole, seen
// around the argument in both renders, that is none of the function's own markers.
void arguments_container(const TemplateProbe& probe, const std::string& one, ToolAnalysis& t) {
    ProbeCall bare;
    bare.arguments.clear();
    const auto zero = probe.render(calls_turn({bare}), false);
    if (!zero) return;
    const DiffSplit d = diff_split(*zero, one);
    const std::string before = trailing_marker(d.prefix);
    const std::string after = leading_marker(d.suffix);
    const auto function_marker = [&](const std::string& m) {
        return m.empty() || m.find(needle::function_first) != std::string::npos ||
               m == t.name_suffix || m == t.per_call_end || m == t.section_end ||
               m == t.per_call_start || m == t.section_start;
    };
    if (function_marker(before) || function_marker(after)) return;
    t.arguments_start = before;
    t.arguments_end = after;
    // The outer markers took the container's end for the function's close.
    if (t.function_close.starts_with(after)) t.function_close.erase(0, after.size());
}

// The two-call turn of T2 and T8: zeta_tool_q with call00001, beta_tool_z with call99999.
std::optional<std::string> two_calls(const TemplateProbe& probe) {
    return probe.render(
        calls_turn({ProbeCall{}, call_with(needle::function_second, needle::id_second)}), false);
}

// T2: one call vs two. A section marker that opens each call is a per-call marker.
void parallel_calls(const std::optional<std::string>& two, const std::string& none,
                    ToolAnalysis& t) {
    if (!two) return;
    t.parallel_calls = true;
    if (t.section_start.empty() || !t.per_call_start.empty()) return;
    const std::string calls = marker_diff_split(none, *two).right;
    const std::size_t first = calls.find(t.section_start);
    if (first != npos && calls.find(t.section_start, first + 1) != npos) {
        t.per_call_start = std::move(t.section_start);
        t.per_call_end = std::move(t.section_end);
        t.section_start.clear();
        t.section_end.clear();
    }
}

// T7: two call ids: where the id stands, and the markers around it.
void call_id_markers(const TemplateProbe& probe, std::string_view section, std::size_t name_at,
                     std::size_t arguments_end, ToolAnalysis& t) {
    if (t.id_position != CallIdPosition::none) return;  // found in the JSON already
    const std::size_t id_at = section.find(needle::id_first);
    if (id_at == npos) return;
    const auto other =
        probe.render(calls_turn({call_with(needle::function_first, needle::id_second)}), false);
    if (!other) return;
    t.id_position = id_at < name_at ? CallIdPosition::pre_function_name
                    : arguments_end != npos && id_at >= arguments_end
                        ? CallIdPosition::post_args
                        : CallIdPosition::between_function_and_args;
    const std::vector<std::string> before = bracketed_markers(section.substr(0, id_at));
    if (!before.empty() && trim(section.substr(0, id_at)).ends_with(before.back()))
        t.id_prefix = before.back();
    t.id_suffix = leading_marker(section.substr(id_at + needle::id_first.size()));
    // The name's suffix ran up to the arguments, through the id: it ends where the id's
    // prefix begins.
    if (t.id_position == CallIdPosition::between_function_and_args) {
        const std::size_t cut = t.name_suffix.find(
            t.id_prefix.empty() ? needle::id_first : std::string_view(t.id_prefix));
        if (cut != npos)
            t.name_suffix = std::string(trim(std::string_view(t.name_suffix).substr(0, cut)));
    }
}

// The word a function name is written in: the text glued to it on either side, up to
// whitespace, a quote, a brace or a marker's bracket ("functions." and ":0" of Kimi K2's
// functions.zeta_tool_q:0; nothing of <function=zeta_tool_q> but "function=").
struct NameWord {
    std::string head, tail;
    std::size_t end = 0;  // where the word ends in the text
};

NameWord name_word(std::string_view text, std::size_t at, std::string_view name) {
    const auto glued = [](char c) {
        return !(c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '"' || c == '\'' ||
                 c == '{' || c == '}' || c == '<' || c == '>' || c == '[' || c == ']');
    };
    std::size_t begin = at, end = at + name.size();
    while (begin > 0 && glued(text[begin - 1])) --begin;
    while (end < text.size() && glued(text[end])) ++end;
    return NameWord{std::string(text.substr(begin, at - begin)),
                    std::string(text.substr(at + name.size(), end - at - name.size())), end};
}

// T8 (tag formats): an id the template writes itself, ignoring the call's own (which T7 did not
// find). Where the words the two calls' names are written in differ by more than the name, the
// template numbers its calls there: the word is the call's id (Kimi K2's functions.NAME:0); the
// name's prefix and suffix are what the two words share before and after the name, and the
// marker after the word closes the id.
void numbered_call_id(const std::optional<std::string>& two, const std::string& none,
                      ToolAnalysis& t) {
    if (!two || t.id_position != CallIdPosition::none) return;
    const std::string calls = marker_diff_split(none, *two).right;
    const std::size_t first_at = calls.find(needle::function_first);
    const std::size_t second_at =
        first_at == npos ? npos : calls.find(needle::function_second, first_at);
    if (second_at == npos) return;
    const NameWord first = name_word(calls, first_at, needle::function_first);
    const NameWord second = name_word(calls, second_at, needle::function_second);
    if (first.head == second.head && first.tail == second.tail) return;
    std::size_t head = 0, tail = 0;
    while (head < std::min(first.head.size(), second.head.size()) &&
           first.head.rbegin()[head] == second.head.rbegin()[head])
        ++head;
    while (tail < std::min(first.tail.size(), second.tail.size()) &&
           first.tail[tail] == second.tail[tail])
        ++tail;
    t.id_position = CallIdPosition::wraps_function_name;
    t.name_prefix = first.head.substr(first.head.size() - head);
    t.name_suffix = first.tail.substr(0, tail);
    t.id_prefix.clear();
    t.id_suffix = leading_marker(std::string_view(calls).substr(first.end));
}

// The function name's prefix is everything between the call's own marker (the per-call one, else
// the section's) and the name, not only what T3 saw after the last '>' ("function<|sep|>" of
// DeepSeek V3's <|call_begin|>function<|sep|>NAME). Not where an id stands there, nor where the
// name is written inside a numbered id (their markers are read apart), nor where the second of
// two calls is written after other text (a call's number: it is no constant prefix).
void widen_name_prefix(std::string_view section, std::size_t name_at,
                       const std::optional<std::string>& two, ToolAnalysis& t) {
    if (t.id_position == CallIdPosition::pre_function_name ||
        t.id_position == CallIdPosition::wraps_function_name)
        return;
    const std::string& opener = t.per_call_start.empty() ? t.section_start : t.per_call_start;
    const std::size_t at = opener.empty() ? npos : section.rfind(opener, name_at);
    if (at == npos) return;
    const std::size_t from = at + opener.size();
    const std::string_view between = trim(section.substr(from, name_at - from));
    if (between.size() <= t.name_prefix.size() || !between.ends_with(t.name_prefix)) return;
    const std::size_t second = two ? two->find(needle::function_second) : npos;
    if (second == npos || !trim(std::string_view(*two).substr(0, second)).ends_with(between))
        return;
    t.name_prefix = std::string(between);
}

// T0: a token written before each marker of the calls and nowhere else: the section begins with
// it, it stands before a '<' each time, at least three times in one call's section, and the turn
// without the call does not have it (the system prompt may: its format instructions show it)
// (MiniMax M3's "]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke
// ..."). Of the section's starts up to a '<', the shortest that is such a token; "" where none is.
std::string marker_filler(std::string_view section, std::string_view none) {
    section = trim(section);
    constexpr std::size_t min_length = 3, min_count = 3;
    for (std::size_t end = section.find('<', 1); end != npos; end = section.find('<', end + 1)) {
        const std::string_view filler = section.substr(0, end);
        if (filler.size() < min_length) continue;
        if (filler.find(needle::function_first) != npos) return "";
        if (none.find(filler) != npos) continue;
        std::size_t count = 0;
        bool each_before_marker = true;
        for (std::size_t at = section.find(filler); at != npos;
             at = section.find(filler, at + filler.size())) {
            ++count;
            if (at + filler.size() >= section.size() || section[at + filler.size()] != '<')
                each_before_marker = false;
        }
        if (count >= min_count && each_before_marker) return std::string(filler);
    }
    return "";
}

// T10 (json_native without markers): text and a call. Where the call's JSON follows the text on
// its line, a model's call need not start a line.
void calls_after_text(const TemplateProbe& probe, ToolAnalysis& t) {
    if (!t.section_start.empty() || !t.per_call_start.empty()) return;
    ProbeTurn turn;
    turn.calls.emplace_back();
    const auto text = probe.render(turn, false);
    const std::size_t at = text ? text->find(needle::content) : npos;
    if (at == npos) return;
    const std::size_t after = at + needle::content.size();
    const std::size_t brace = text->find_first_not_of(" \t", after);
    t.calls_follow_text = brace != npos && ((*text)[brace] == '{' || (*text)[brace] == '[') &&
                          text->find(needle::function_first, brace) != npos;
}

// T9: what a calls turn writes after its last call's marker, where that is not the turn's end.
void after_calls(const std::string& one, const std::string& turn_end, ToolAnalysis& t) {
    std::string_view last;
    for (const std::string* m : {&t.section_end, &t.per_call_end, &t.function_close}) {
        if (!m->empty()) {
            last = *m;
            break;
        }
    }
    const std::size_t at = last.empty() ? npos : one.rfind(last);
    if (at == npos) return;
    std::string marker = leading_marker(std::string_view(one).substr(at + last.size()));
    if (!marker.empty() && marker != turn_end) t.after_calls = std::move(marker);
}

}  // namespace

void analyze_tools(const TemplateProbe& probe, TemplateAnalysis& analysis) {
    ToolAnalysis& t = analysis.tools;
    if (!probe.has_tools()) {
        analysis.notes.push_back("the template refuses tools: " + probe.last_error());
        return;
    }
    // T1: a turn without a call (empty, and with text) vs one call: the call's section is the
    // shorter of the two diffs (a template that skips an empty turn puts the turn's header and
    // end into the first; Ministral refuses an empty turn), then the format by where the
    // needles stand. The diff passes over whitespace the two write differently around a marker
    // they share (DeepSeek V3.1 writes "<|Assistant|>  </think>" before text and
    // "<|Assistant|></think>  " before calls), else those markers would open the section.
    const auto one = probe.render(calls_turn({ProbeCall{}}), false);
    if (!one) {
        analysis.notes.push_back("the template renders no tool call: " + probe.last_error());
        return;
    }
    std::optional<std::string> found, found_base;
    // Whether the render with the call lost what the base ended its turn with (see outer_markers).
    bool turn_end_replaced = false;
    // Whether a call changes the render at all (unknown, so yes, where the empty turn is refused).
    bool differs = true;
    for (auto base : {probe.render(calls_turn({}), false), probe.render(ProbeTurn{}, false)}) {
        if (base && base->find(needle::content) == npos) differs = *base != *one;
        if (!base || *base == *one) continue;
        const DiffSplit d = marker_diff_split(*base, *one);
        if (d.right.find(needle::function_first) == npos) continue;
        if (!found || d.right.size() < found->size()) {
            found = d.right;
            found_base = std::move(base);
            const std::string& turn_end = analysis.content.turn_end;
            turn_end_replaced = !turn_end.empty() && trim(d.left).ends_with(turn_end);
        }
    }
    if (!found) {
        analysis.notes.push_back(differs ? "the template's tool call does not name its function"
                                         : "the template renders no tool call");
        return;
    }
    const std::string section = std::move(*found);
    const std::string none = std::move(*found_base);
    if (probe.removed_from_renders().empty()) {
        const std::size_t user = none.rfind(needle::user);
        const std::string_view turn =
            std::string_view(none).substr(user == npos ? 0 : user + needle::user.size());
        if (std::string filler = marker_filler(section, turn); !filler.empty()) {
            // The steps read the calls as the template writes them without the token.
            TemplateProbe without_filler = probe;
            without_filler.remove_from_renders(filler);
            analyze_tools(without_filler, analysis);
            t.marker_filler = std::move(filler);
            return;
        }
    }
    const std::size_t name_at = section.find(needle::function_first);
    if (name_at == npos) {
        analysis.notes.push_back("the function name is not in the rendered call: " + section);
        return;
    }
    const std::size_t argument_at = section.find(needle::argument_first);
    if (in_json(section, name_at, needle::function_first.size())) {
        t.format = ToolFormat::json_native;
        const auto json = json_around(section, name_at);
        if (!json ||
            !read_json_call_fields(
                std::string_view(section).substr(json->first, json->second - json->first), t)) {
            analysis.notes.push_back("the call's JSON could not be read: " + section);
            return;
        }
        outer_markers(section, json->first, json->second, analysis.reasoning,
                      analysis.content.turn_end, turn_end_replaced, t);
        parallel_calls(two_calls(probe), none, t);
        after_calls(*one, analysis.content.turn_end, t);
        calls_after_text(probe, t);
        return;
    }
    if (read_call_expression(section, name_at, t)) {
        parallel_calls(two_calls(probe), none, t);
        after_calls(*one, analysis.content.turn_end, t);
        return;
    }
    t.format = argument_at != npos && in_json(section, argument_at, needle::argument_first.size())
                   ? ToolFormat::tag_with_json
                   : ToolFormat::tag_with_tagged;
    function_name_markers(probe, *one, t);
    std::size_t open_end = name_at;
    if (!t.name_prefix.empty() && section.rfind(t.name_prefix, name_at) != npos)
        open_end = section.rfind(t.name_prefix, name_at);
    std::size_t arguments_end = npos;
    if (t.format == ToolFormat::tag_with_json) {
        const std::size_t brace = section.find('{', name_at);
        if (const auto end = brace == npos ? std::nullopt : json_extent(section, brace))
            arguments_end = *end;
    } else {
        argument_markers(probe, *one, t);
        const std::size_t value_at = section.rfind(needle::value_first);
        t.value_on_own_lines = value_at != npos && value_at > 0 && section[value_at - 1] == '\n';
        if (value_at != npos) {
            arguments_end = value_at + needle::value_first.size();
            const std::size_t suffix = section.find(t.argument_value_suffix, arguments_end);
            if (!t.argument_value_suffix.empty() && suffix != npos)
                arguments_end = suffix + t.argument_value_suffix.size();
        }
    }
    if (arguments_end == npos) {
        analysis.notes.push_back("the call's arguments were not found: " + section);
        return;
    }
    if (t.format == ToolFormat::tag_with_tagged) argument_separator(probe, t);
    call_id_markers(probe, section, name_at, arguments_end, t);
    std::size_t close_begin = arguments_end;
    if (t.id_position == CallIdPosition::post_args) {
        const std::size_t id_end = section.find(needle::id_first, arguments_end);
        close_begin = id_end + needle::id_first.size();
        if (!t.id_suffix.empty() && section.find(t.id_suffix, close_begin) != npos)
            close_begin = section.find(t.id_suffix, close_begin) + t.id_suffix.size();
    }
    outer_markers(section, open_end, close_begin, analysis.reasoning, analysis.content.turn_end,
                  turn_end_replaced, t);
    // After the outer markers, which it must not take for its own.
    if (t.format == ToolFormat::tag_with_tagged) arguments_container(probe, *one, t);
    const auto two = two_calls(probe);
    parallel_calls(two, none, t);
    numbered_call_id(two, none, t);
    widen_name_prefix(section, name_at, two, t);
    after_calls(*one, analysis.content.turn_end, t);
}

}  // namespace cmfpipe::chat_template
