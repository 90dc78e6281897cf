// Processor kind "pii_redactor": redacts e-mail addresses, phone numbers and card numbers (Luhn
// checked) in every string of a message that goes to or comes from the model: text and thinking
// parts, the string values of tool-call arguments and of tool-result content, the names and ids
// of tool calls and results, document titles, and the speaker's name (custom.metadata.name); and
// appends a label (default "PII") to security.labels of every message it redacted. Declare
// append_labels.
//
// A thinking part sealed by its provider (cmf::Thinking::signature) cannot be redacted: the
// provider refuses an edited signed block, and the pipeline rejects the change. `sealed` says
// what happens when one holds personal data: `keep` (default) leaves it as the provider wrote it
// (the data came from that provider), redacts the rest and labels the message with the label and
// `sealed_label` (default "PII_SEALED"), so later processors and policies see it; `deny` denies
// the message instead, naming the parts and kinds (code "sealed_pii").
//
//   config: {kinds: [email, phone, card], label: PII, sealed: keep, sealed_label: PII_SEALED}
//           (all optional; these are the defaults)
#include <optional>
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
    bool deny_sealed = false;  // sealed: deny
    std::string sealed_label = "PII_SEALED";

    static Settings parse(const Json& config) {
        Settings s;
        if (!config.is_object()) throw ValueError("pii_redactor: config must be an object");
        for (const auto& [key, value] : config.items()) {
            if (key == "label" || key == "sealed_label") {
                if (!value.is_string() || value.get<std::string>().empty()) {
                    throw ValueError("pii_redactor: " + key + " must be a non-empty string");
                }
                (key == "label" ? s.label : s.sealed_label) = value.get<std::string>();
            } else if (key == "sealed") {
                if (value != "keep" && value != "deny")
                    throw ValueError("pii_redactor: sealed must be keep or deny, got " +
                                     value.dump());
                s.deny_sealed = value == "deny";
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
                                 "' (known: kinds, label, sealed, sealed_label)");
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
        const SealedPii sealed = sealed_pii(message);
        if (s_.deny_sealed && !sealed.parts.empty()) return deny_sealed(sealed);
        // The copy is made at the first change: most messages hold nothing to redact.
        std::optional<cmf::Message> out;
        for (std::size_t i = 0; i < message.size(); ++i) {
            if (cmf::PartPtr redacted = redact_part(*message.part(i)))
                out = (out ? *out : message).with_part(i, std::move(redacted));
        }
        if (cmf::CustomPtr custom = redact_speaker_name(message.custom()))
            out = (out ? *out : message).with_custom(std::move(custom));
        if (!sealed.parts.empty())
            return cmfpipe::ProcessorResult::modify(
                (out ? *out : message).with_labels_added({s_.label, s_.sealed_label}));
        if (!out) return cmfpipe::ProcessorResult::allow();
        return cmfpipe::ProcessorResult::modify(out->with_labels_added({s_.label}));
    }

    // Text before the last character no address, phone or card number could span is final
    // (pii::final_length): in prose, all but the word being written.
    std::optional<std::size_t> final_length(std::string_view text,
                                            const cmfpipe::ProcessorContext&) const override {
        return pii::final_length(text, s_.emails, s_.phones, s_.cards);
    }

  private:
    // The sealed thinking parts that hold personal data (content indices) and the kinds found.
    struct SealedPii {
        Json parts{};  // null until a part is found (push_back makes it an array)
        cmf::StringSet kinds{};
    };

    SealedPii sealed_pii(const cmf::Message& message) const {
        SealedPii found;
        for (std::size_t i = 0; i < message.size(); ++i) {
            const auto* thinking = message.part(i)->get_if<cmf::Thinking>();
            if (!thinking || !thinking->sealed()) continue;
            auto matches = pii::find_pii(thinking->text, s_.emails, s_.phones, s_.cards);
            if (matches.empty()) continue;
            found.parts.push_back(i);
            for (const auto& match : matches) found.kinds.insert(pii::name(match.kind));
        }
        return found;
    }

    static cmfpipe::ProcessorResult deny_sealed(const SealedPii& sealed) {
        std::string kinds;
        for (const auto& kind : sealed.kinds) kinds += (kinds.empty() ? "" : ", ") + kind;
        return cmfpipe::ProcessorResult::deny(
            "provider-signed thinking holds personal data (" + kinds +
                ") that cannot be redacted without breaking its signature",
            "sealed_pii", Json{{"parts", sealed.parts}, {"kinds", Json(sealed.kinds)}});
    }

    // The redacted copy of a part, or nullptr when it holds nothing to redact. Thinking is sent
    // back to the model with the conversation, and tool results go to it as input: both leave.
    // Names and ids are redacted alike: the same id redacts to the same text in a call and in its
    // result, so they still pair.
    cmf::PartPtr redact_part(const cmf::ContentPart& part) const {
        if (const auto* text = part.get_if<cmf::Text>()) {
            auto redacted = redact(text->text);
            return redacted ? cmf::ContentPart::text(std::move(*redacted)) : nullptr;
        }
        if (const auto* thinking = part.get_if<cmf::Thinking>()) {
            if (thinking->sealed()) return nullptr;  // the provider's: see sealed_pii
            auto redacted = redact(thinking->text);
            return redacted ? cmf::ContentPart::thinking(std::move(*redacted)) : nullptr;
        }
        if (const auto* call = part.get_if<cmf::ToolCall>()) {
            cmf::ToolCall copy = *call;
            // Every field is redacted: no short circuit once one has changed.
            bool changed = redact_in_place(copy.tool_call_id);
            changed = redact_in_place(copy.name) || changed;
            changed = redact_strings(copy.arguments) || changed;
            return changed ? cmf::ContentPart::make(std::move(copy)) : nullptr;
        }
        if (const auto* result = part.get_if<cmf::ToolResult>()) {
            cmf::ToolResult copy = *result;
            bool changed = redact_in_place(copy.tool_call_id);
            changed = redact_in_place(copy.tool_name) || changed;
            changed = redact_strings(copy.content) || changed;
            return changed ? cmf::ContentPart::make(std::move(copy)) : nullptr;
        }
        if (const auto* document = part.get_if<cmf::DocumentSource>()) {
            cmf::DocumentSource copy = *document;
            if (!copy.title || !redact_in_place(*copy.title)) return nullptr;
            return cmf::ContentPart::make(std::move(copy));
        }
        return nullptr;
    }

    // custom.metadata.name (a request message's `name`) redacted; nullptr when nothing changed.
    cmf::CustomPtr redact_speaker_name(const cmf::CustomPtr& custom) const {
        if (!custom || !custom->is_object()) return nullptr;
        auto metadata = custom->find("metadata");
        if (metadata == custom->end() || !metadata->is_object()) return nullptr;
        auto name = metadata->find("name");
        if (name == metadata->end() || !name->is_string()) return nullptr;
        auto redacted = redact(name->get_ref<const std::string&>());
        if (!redacted) return nullptr;
        Json copy = *custom;
        copy["metadata"]["name"] = std::move(*redacted);
        return std::make_shared<const Json>(std::move(copy));
    }

    bool redact_in_place(std::string& text) const {
        auto redacted = redact(text);
        if (!redacted) return false;
        text = std::move(*redacted);
        return true;
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
