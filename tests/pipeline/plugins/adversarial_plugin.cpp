// Processors that misbehave on purpose, one kind each, to pin the pipeline's answer to every kind
// of misbehaviour under every mode. Built into test-plugins/pipeline/adversarial.so.
#include <stdexcept>

#include "cmfpipe/cmf/extensions.hpp"
#include "cmfpipe/plugin.hpp"

namespace {

using cmfpipe::ProcessorContext;
using cmfpipe::ProcessorResult;
using cmfpipe::cmf::Message;

// Removes the label "SECRET" (monotonic tier: a violation).
class RemoveLabel : public cmfpipe::Processor {
    ProcessorResult process(const Message& m, const ProcessorContext&) const override {
        if (!m.security() || !m.security()->labels.count("SECRET")) return ProcessorResult::allow();
        auto security = std::make_shared<cmfpipe::cmf::SecurityExtension>(*m.security());
        security->labels.erase("SECRET");
        return ProcessorResult::modify(m.with_security(std::move(security)));
    }
};

// Gives the subject the role "admin" (security.subject is immutable: a violation).
class EditSubject : public cmfpipe::Processor {
    ProcessorResult process(const Message& m, const ProcessorContext&) const override {
        if (!m.security() || !m.security()->subject) return ProcessorResult::allow();
        auto subject = std::make_shared<cmfpipe::cmf::SubjectExtension>(*m.security()->subject);
        subject->roles.insert("admin");
        auto security = std::make_shared<cmfpipe::cmf::SecurityExtension>(*m.security());
        security->subject = std::move(subject);
        return ProcessorResult::modify(m.with_security(std::move(security)));
    }
};

// Sets the header X-Injected: yes (guarded: needs write_headers).
class WriteHeader : public cmfpipe::Processor {
    ProcessorResult process(const Message& m, const ProcessorContext&) const override {
        auto http = m.http() ? std::make_shared<cmfpipe::cmf::HttpExtension>(*m.http())
                             : std::make_shared<cmfpipe::cmf::HttpExtension>();
        http->headers.set("X-Injected", "yes");
        return ProcessorResult::modify(m.with_http(std::move(http)));
    }
};

// Sets custom.edited_by = its name (custom is mutable: accepted).
class EditCustom : public cmfpipe::Processor {
    ProcessorResult process(const Message& m, const ProcessorContext& context) const override {
        cmfpipe::Json custom = m.custom() ? *m.custom() : cmfpipe::Json::object();
        custom["edited_by"] = std::string(context.name);
        return ProcessorResult::modify(
            m.with_custom(std::make_shared<const cmfpipe::Json>(std::move(custom))));
    }
};

// Always throws (also when asked how much of a streamed text is final).
class Throw : public cmfpipe::Processor {
    ProcessorResult process(const Message&, const ProcessorContext&) const override {
        throw std::runtime_error("boom");
    }
    std::optional<std::size_t> final_length(std::string_view,
                                            const ProcessorContext&) const override {
        throw std::runtime_error("boom");
    }
};

// Always denies.
class Deny : public cmfpipe::Processor {
    ProcessorResult process(const Message&, const ProcessorContext& context) const override {
        return ProcessorResult::deny("denied by test", "test.deny", {{"message", context.index}});
    }
};

template <class T>
cmfpipe::ProcessorFactory make() {
    return [](const cmfpipe::Json&) { return std::make_unique<T>(); };
}

void register_kinds(cmfpipe::Registrar& r) {
    r.add_processor("remove_label", make<RemoveLabel>());
    r.add_processor("edit_subject", make<EditSubject>());
    r.add_processor("write_header", make<WriteHeader>());
    r.add_processor("edit_custom", make<EditCustom>());
    r.add_processor("throw", make<Throw>());
    r.add_processor("deny", make<Deny>());
}

}  // namespace

CMFPIPE_PLUGIN(adversarial, "0.1.0", register_kinds)
