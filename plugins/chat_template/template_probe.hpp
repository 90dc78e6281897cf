#pragma once
// The conversations the template analysis renders, and the rendering itself. Every variant is
// one user turn and, where it has one, one assistant turn built from distinctive needles (the
// content, the reasoning, two function names, two argument names, two values, two call ids), so
// that what a diff finds can be located by searching for a needle.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/json.hpp"
#include "cmfpipe/renderer.hpp"
#include "template_analysis.hpp"

namespace cmfpipe::chat_template {

namespace needle {
// Each pair that two variants set apart shares no first and no last character, so that a diff
// of the two stops exactly at the needle and never takes a common "func_" into the markup.
inline constexpr std::string_view user = "USER_QUESTION_TEXT";
inline constexpr std::string_view content = "CONTENT_NEEDLE_X";
inline constexpr std::string_view reasoning = "REASONING_NEEDLE_Y";
inline constexpr std::string_view function_first = "zeta_tool_q";
inline constexpr std::string_view function_second = "beta_tool_z";
inline constexpr std::string_view argument_first = "place_q";
inline constexpr std::string_view argument_second = "unit_z";
inline constexpr std::string_view value_first = "XXXX";
inline constexpr std::string_view value_second = "YYYY";
inline constexpr std::string_view id_first = "call00001";
inline constexpr std::string_view id_second = "call99999";
}  // namespace needle

using ProbeArguments = std::vector<std::pair<std::string_view, std::string_view>>;

// arg_first: XXXX, the arguments of a call unless a variant says otherwise.
inline ProbeArguments first_argument() {
    ProbeArguments arguments;
    arguments.emplace_back(needle::argument_first, needle::value_first);
    return arguments;
}

// One tool call of a variant: its function, its arguments ({name: value}), its id.
struct ProbeCall {
    std::string_view function = needle::function_first;
    ProbeArguments arguments = first_argument();
    std::string_view id = needle::id_first;
};

// The assistant turn of a variant (absent: the conversation ends with the user's turn).
struct ProbeTurn {
    std::optional<std::string_view> content = needle::content;
    std::optional<std::string_view> reasoning;
    std::vector<ProbeCall> calls;
};

// The turns the steps use: text alone, text after reasoning, tool calls with empty text.
inline ProbeTurn reasoning_turn() {
    ProbeTurn turn;
    turn.reasoning = needle::reasoning;
    return turn;
}
inline ProbeTurn calls_turn(std::vector<ProbeCall> calls) {
    ProbeTurn turn;
    turn.content = "";
    turn.calls = std::move(calls);
    return turn;
}

class TemplateProbe {
  public:
    TemplateProbe(const Renderer& renderer, const AnalysisInputs& inputs);

    // The conversation rendered, or nothing where the template raised (the error goes to
    // last_error()). `thinking`: enable_thinking true/false, or undefined.
    std::optional<std::string> render(const std::optional<ProbeTurn>& assistant,
                                      bool generation_prompt,
                                      std::optional<bool> thinking = std::nullopt) const;

    bool has_tools() const { return !tools_.is_null(); }
    // How the template wants a call's turn, found once: text "" or null beside the calls
    // (Ministral refuses ""), arguments as an object or as JSON text (Functionary v3.2
    // concatenates them).
    bool calls_with_null_content() const { return null_call_content_; }
    bool arguments_as_text() const { return arguments_as_text_; }
    const std::string& last_error() const { return last_error_; }
    // Every render without `filler` (ToolAnalysis::marker_filler), for the steps that read the
    // calls' markers.
    void remove_from_renders(std::string filler) { filler_ = std::move(filler); }
    const std::string& removed_from_renders() const { return filler_; }

  private:
    const Renderer& renderer_;
    const AnalysisInputs& inputs_;
    Json tools_;  // the two probe tools, or null where the template refuses tools
    bool null_call_content_ = false;
    bool arguments_as_text_ = false;
    std::string filler_;
    mutable std::string last_error_;
};

}  // namespace cmfpipe::chat_template
