// Processor kind "pii_redactor": redacts e-mail addresses, phone numbers and card numbers (Luhn
// checked) in text and thinking parts, and in the string values of tool-call arguments and of
// tool-result content, and appends a label (default "PII") to security.labels of every message
// it redacted. Declare append_labels.
//
//   config: {kinds: [email, phone, card], label: PII}      (both optional; these are the defaults)
#include <string>

#include "cmfpipe/cmf/extensions.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/plugin.hpp"
#include "pii_scanner.hpp"

namespace {

using cmfpipe::Json;
using cmfpipe::ValueError;
namespace cmf = cmfpipe::cmf;

struct Settings {
    bool emails = true, phones = true, cards = true;
    std::string label = "PII";

    static Settings parse(const Json& config) {
        Settings s;
        if (!config.is_object()) throw ValueError("pii_redactor: config must be an object");
        for (const auto& [key, value] : config.items()) {
            if (key == "label") {
                if (!value.is_string() || value.get<std::string>().empty()) {
                    throw ValueError("pii_redactor: label must be a non-empty string");
                }
                s.label = value.get<std::string>();
            } else if (key == "kinds") {
                if (!value.is_array())
                    throw ValueError("pii_redactor: kinds must be a list of email, phone, card");
                s.emails = s.phones = s.cards = false;
                for (const auto& kind : value) {
                    std::string k = kind.is_string() ? kind.get<std::string>() : kind.dump();
                    if (k == "email")
                        s.emails = true;
                    else if (k == "phone")
                        s.phones = true;
                    else if (k == "card")
                        s.cards = true;
                    else
                        throw ValueError("pii_redactor: unknown kind " + kind.dump() +
                                         " (known: email, phone, card)");
                }
            } else {
                throw ValueError("pii_redactor: unknown config key '" + key +
                                 "' (known: kinds, label)");
            }
        }
        return s;
    }
};

class PiiRedactor : public cmfpipe::Processor {
  public:
    explicit PiiRedactor(Settings settings) : s_(std::move(settings)) {}

    cmfpipe::ProcessorResult process(const cmf::Message& message,
                                     const cmfpipe::ProcessorContext&) const override {
        cmf::Message out = message;
        bool changed = false;
        for (std::size_t i = 0; i < message.size(); ++i) {
            if (cmf::PartPtr redacted = redact_part(*message.part(i))) {
                out = out.with_part(i, std::move(redacted));
                changed = true;
            }
        }
        if (!changed) return cmfpipe::ProcessorResult::allow();
        return cmfpipe::ProcessorResult::modify(out.with_labels_added({s_.label}));
    }

  private:
    // The redacted copy of a part, or nullptr when it holds nothing to redact. Thinking is sent
    // back to the model with the conversation, and tool results go to it as input: both leave.
    cmf::PartPtr redact_part(const cmf::ContentPart& part) const {
        if (const auto* text = part.get_if<cmf::Text>()) {
            auto redacted = redact(text->text);
            return redacted ? cmf::ContentPart::text(std::move(*redacted)) : nullptr;
        }
        if (const auto* thinking = part.get_if<cmf::Thinking>()) {
            auto redacted = redact(thinking->text);
            return redacted ? cmf::ContentPart::thinking(std::move(*redacted)) : nullptr;
        }
        if (const auto* call = part.get_if<cmf::ToolCall>())
            return redact_member(*call, &cmf::ToolCall::arguments);
        if (const auto* result = part.get_if<cmf::ToolResult>())
            return redact_member(*result, &cmf::ToolResult::content);
        return nullptr;
    }

    // A part whose JSON member has its string values redacted; nullptr when none changed.
    template <class Part>
    cmf::PartPtr redact_member(const Part& part, Json Part::*member) const {
        Json value = part.*member;
        if (!redact_strings(value)) return nullptr;
        Part copy = part;
        copy.*member = std::move(value);
        return cmf::ContentPart::make(std::move(copy));
    }

    std::optional<std::string> redact(std::string_view text) const {
        auto matches = pii::find_pii(text, s_.emails, s_.phones, s_.cards);
        if (matches.empty()) return std::nullopt;
        return pii::redact(text, matches);
    }

    // Redacts every string value (not key) in place; true when any changed.
    bool redact_strings(Json& value) const {
        if (value.is_string()) {
            auto redacted = redact(value.get_ref<const std::string&>());
            if (!redacted) return false;
            value = std::move(*redacted);
            return true;
        }
        bool changed = false;
        if (value.is_structured()) {
            for (auto& item : value) changed = redact_strings(item) || changed;
        }
        return changed;
    }

    Settings s_;
};

void register_kinds(cmfpipe::Registrar& r) {
    r.add_processor("pii_redactor", [](const Json& config) {
        return std::make_unique<PiiRedactor>(Settings::parse(config));
    });
}

}  // namespace

CMFPIPE_PLUGIN(pii_redactor, "0.1.0", register_kinds)
