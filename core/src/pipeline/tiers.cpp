// Tier checks on a processor's returned copy. Pointer identity first; a value comparison only for
// slots whose pointer changed, so an untouched 1 MB extension costs one comparison of pointers.
#include "cmfpipe/core/pipeline/tiers.hpp"

#include <algorithm>
#include <iterator>
#include <optional>
#include <string>

#include "cmfpipe/cmf/content.hpp"
#include "cmfpipe/cmf/extensions.hpp"

namespace cmfpipe::pipeline {
namespace {

constexpr const char* immutable_detail = "slot has no write capability and cannot be modified";

// Same pointer, or both present and equal by value. (null equals only null.)
template <class T>
bool same_slot(const std::shared_ptr<const T>& a, const std::shared_ptr<const T>& b) {
    if (a == b) return true;
    return a && b && *a == *b;
}

// objects and data: a null map means an empty one.
template <class Map>
bool same_map(const std::shared_ptr<const Map>& a, const std::shared_ptr<const Map>& b) {
    if (a == b) return true;
    if (!a || !b) return (a ? a->empty() : true) && (b ? b->empty() : true);
    return *a == *b;
}

std::string joined(const cmf::StringSet& names) {
    std::string out;
    for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
    return out;
}

// The labels of `a` that `b` lacks (only to name them in a violation).
cmf::StringSet missing(const cmf::StringSet& a, const cmf::StringSet& b) {
    cmf::StringSet out;
    std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::inserter(out, out.end()));
    return out;
}

class Checker {
  public:
    Checker(const cmf::Extensions& current, const cmf::Extensions& given,
            const cmf::Extensions& returned, WriteRights rights,
            std::vector<SlotViolation>& violations)
        : current_(current),
          given_(given),
          returned_(returned),
          rights_(rights),
          violations_(violations) {}

    template <class T>
    void immutable(const char* name, std::shared_ptr<const T> cmf::Extensions::*slot) {
        if (!same_slot(given_.*slot, returned_.*slot)) violate(name, "immutable", immutable_detail);
    }

    void guarded_http() {
        if (same_slot(given_.http, returned_.http)) return;
        if (!rights_.write_headers)
            return violate("http", "guarded", "plugin lacks 'write_headers' capability");
        merged().http = returned_.http;
    }

    void mutable_custom() {
        if (same_slot(given_.custom, returned_.custom)) return;
        merged().custom = returned_.custom;
    }

    void security() {
        const auto& g = given_.security;
        const auto& r = returned_.security;
        if (g == r) return;
        static const cmf::SecurityExtension none;
        const cmf::SecurityExtension& before = g ? *g : none;
        const cmf::SecurityExtension& after = r ? *r : none;
        if (!same_slot(before.subject, after.subject))
            violate("security.subject", "immutable", immutable_detail);
        if (!same_map(before.objects, after.objects))
            violate("security.objects", "immutable", immutable_detail);
        if (!same_map(before.data, after.data))
            violate("security.data", "immutable", immutable_detail);
        if (before.classification != after.classification) {
            violate("security.classification", "immutable", immutable_detail);
        }
        const auto& was = before.labels;
        const auto& is = after.labels;
        if (!std::includes(is.begin(), is.end(), was.begin(), was.end())) {
            violate("security.labels", "monotonic",
                    "monotonic slot had elements removed: " + joined(missing(was, is)));
        }
        if (std::includes(was.begin(), was.end(), is.begin(), is.end())) return;  // none added
        if (!rights_.append_labels) {
            return violate("security.labels", "monotonic",
                           "plugin lacks 'append_labels' capability (added: " +
                               joined(missing(is, was)) + ")");
        }
        // The labels are added to the current slot, whose subject/objects/data the processor may
        // not even have seen: those stay shared with the current message.
        auto security = current_.security
                            ? std::make_shared<cmf::SecurityExtension>(*current_.security)
                            : std::make_shared<cmf::SecurityExtension>();
        auto old = was.begin();
        for (const auto& label : is) {  // the added ones: in `is`, not in `was`
            while (old != was.end() && *old < label) ++old;
            if (old == was.end() || label < *old) security->labels.insert(label);
        }
        merged().security = std::move(security);
    }

    // The current record with the accepted changes; null when nothing was changed.
    std::optional<cmf::Extensions>& result() { return merged_; }

  private:
    // Copied from the current record on the first accepted change only.
    cmf::Extensions& merged() {
        if (!merged_) merged_.emplace(current_);
        return *merged_;
    }

    void violate(const char* slot, const char* tier, std::string detail) {
        violations_.push_back({slot, tier, std::move(detail)});
    }

    const cmf::Extensions& current_;
    const cmf::Extensions& given_;
    const cmf::Extensions& returned_;
    WriteRights rights_;
    std::vector<SlotViolation>& violations_;
    std::optional<cmf::Extensions> merged_;
};

// A sealed thinking part of a message's content, with where it is (for the detail).
struct SealedPart {
    std::size_t index;
    const cmf::Thinking* thinking;
};

std::vector<SealedPart> sealed_parts(const cmf::Message& message) {
    std::vector<SealedPart> out;
    for (std::size_t i = 0; i < message.size(); ++i) {
        const auto* thinking = message.part(i)->get_if<cmf::Thinking>();
        if (thinking && thinking->sealed()) out.push_back({i, thinking});
    }
    return out;
}

// Content is mutable, but a provider-signed thinking part is not: the provider refuses a sealed
// block that was edited. The sealed parts of the copy must be those given, in order (other parts
// may come and go around them). The first difference is reported.
void check_sealed_thinking(const cmf::Message& given, const cmf::Message& returned,
                           std::vector<SlotViolation>& violations) {
    const std::vector<SealedPart> was = sealed_parts(given);
    const std::vector<SealedPart> is = sealed_parts(returned);
    auto at = [](std::size_t index) { return "content[" + std::to_string(index) + "]"; };
    auto has_seal = [](const std::vector<SealedPart>& parts, const std::string& signature) {
        return std::any_of(parts.begin(), parts.end(),
                           [&](const SealedPart& p) { return p.thinking->signature == signature; });
    };
    std::string detail;
    for (std::size_t k = 0; k < std::max(was.size(), is.size()) && detail.empty(); ++k) {
        if (k < was.size() && k < is.size() && *was[k].thinking == *is[k].thinking) continue;
        if (k < is.size() && (k >= was.size() || !has_seal(was, is[k].thinking->signature))) {
            detail = at(is[k].index) +
                     " carries a signature the message did not have (a provider's signature "
                     "cannot be forged or replaced)";
        } else if (k >= is.size() || !has_seal(is, was[k].thinking->signature)) {
            detail = "the sealed thinking part " + at(was[k].index) +
                     " was changed, unsealed or removed";
        } else if (was[k].thinking->signature != is[k].thinking->signature) {
            detail = "the sealed thinking parts were reordered (" + at(was[k].index) + ")";
        } else {
            detail =
                "the " +
                std::string(was[k].thinking->text != is[k].thinking->text ? "text of the " : "") +
                "sealed thinking part " + at(was[k].index) +
                " was changed (the provider refuses an edited signed block)";
        }
    }
    if (!detail.empty()) violations.push_back({"content.thinking", "immutable", std::move(detail)});
}

}  // namespace

ReturnedCopy apply_returned(const cmf::Message& current, const cmf::Message& given,
                            const cmf::Message& returned, WriteRights rights) {
    std::vector<SlotViolation> violations;
    if (returned.role() != given.role()) {
        violations.push_back({"role", "immutable", "the role of a message cannot be changed"});
    }

    // Content is mutable (sealed thinking aside). A part the processor left as given keeps the
    // current part (which may hold nested messages the processor was shown filtered); a changed
    // part is taken.
    std::optional<cmf::Content> content;
    if (returned.content_ptr() != given.content_ptr() && returned.content() != given.content()) {
        check_sealed_thinking(given, returned, violations);
        content = returned.content();
        if (content->size() == given.size() && given.size() == current.size()) {
            for (std::size_t i = 0; i < content->size(); ++i) {
                if ((*content)[i] == given.part(i)) (*content)[i] = current.part(i);
            }
        }
    }
    const bool channel_changed = returned.channel() != given.channel();

    std::optional<cmf::Extensions> extensions;
    if (returned.extensions_ptr() != given.extensions_ptr()) {
        Checker check(current.extensions(), given.extensions(), returned.extensions(), rights,
                      violations);
        check.immutable("request", &cmf::Extensions::request);
        check.immutable("agent", &cmf::Extensions::agent);
        check.guarded_http();
        check.security();
        check.immutable("delegation", &cmf::Extensions::delegation);
        check.immutable("mcp", &cmf::Extensions::mcp);
        check.immutable("completion", &cmf::Extensions::completion);
        check.immutable("provenance", &cmf::Extensions::provenance);
        check.immutable("llm", &cmf::Extensions::llm);
        check.immutable("framework", &cmf::Extensions::framework);
        check.immutable("meta", &cmf::Extensions::meta);
        check.mutable_custom();
        extensions = std::move(check.result());
    }

    if (!violations.empty()) return {current, false, std::move(violations)};
    if (!content && !channel_changed && !extensions) return {current, false, {}};
    // The merged message is built once, around what changed.
    cmf::Message merged = extensions
                              ? current.with_extensions(
                                    std::make_shared<const cmf::Extensions>(std::move(*extensions)))
                              : current;
    if (content) merged = merged.with_content(std::move(*content));
    if (channel_changed) merged = merged.with_channel(returned.channel());
    return {std::move(merged), true, {}};
}

}  // namespace cmfpipe::pipeline
