// Processor kind "pii_redactor": redacts e-mail addresses, phone numbers and card numbers (Luhn
// checked) in text parts and in the string values of tool-call arguments, and appends a label
// (default "PII") to security.labels of every message it redacted. Declare append_labels.
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
            const cmf::PartPtr& part = message.part(i);
            if (const auto* text = part->get_if<cmf::Text>()) {
                if (auto redacted = redact(text->text)) {
                    out = out.with_part(i, cmf::ContentPart::text(std::move(*redacted)));
                    changed = true;
                }
            } else if (const auto* call = part->get_if<cmf::ToolCall>()) {
                Json arguments = call->arguments;
                if (redact_strings(arguments)) {
                    cmf::ToolCall copy = *call;
                    copy.arguments = std::move(arguments);
                    out = out.with_part(i, cmf::ContentPart::make(std::move(copy)));
                    changed = true;
                }
            }
        }
        if (!changed) return cmfpipe::ProcessorResult::allow();
        return cmfpipe::ProcessorResult::modify(out.with_labels_added({s_.label}));
    }

  private:
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
