// The processors of recording.hpp.
#include "recording.hpp"

#include "cmfpipe/cmf/content.hpp"
#include "cmfpipe/plugin.hpp"

namespace pipeline_test {

std::vector<Seen>& recorded() {
    static std::vector<Seen> log;
    return log;
}

}  // namespace pipeline_test

namespace {

using cmfpipe::ProcessorContext;
using cmfpipe::ProcessorResult;
using cmfpipe::cmf::Message;

class Record final : public cmfpipe::Processor {
    ProcessorResult process(const Message& m, const ProcessorContext&) const override {
        pipeline_test::recorded().push_back({&m, m});
        return ProcessorResult::allow();
    }
};

class LabelFirst final : public cmfpipe::Processor {
    ProcessorResult process(const Message& m, const ProcessorContext& context) const override {
        if (context.index != 0) return ProcessorResult::allow();
        return ProcessorResult::modify(m.with_labels_added({"FIRST"}));
    }
};

class LabelAll final : public cmfpipe::Processor {
    ProcessorResult process(const Message& m, const ProcessorContext&) const override {
        return ProcessorResult::modify(m.with_labels_added({"SEEN"}));
    }
};

// A naive processor: " (edited)" added to every thinking part, its signature kept.
class EditThinking final : public cmfpipe::Processor {
    ProcessorResult process(const Message& m, const ProcessorContext&) const override {
        Message out = m;
        for (std::size_t i = 0; i < m.size(); ++i) {
            if (const auto* thinking = m.part(i)->get_if<cmfpipe::cmf::Thinking>()) {
                cmfpipe::cmf::Thinking edited = *thinking;
                edited.text += " (edited)";
                out = out.with_part(i, cmfpipe::cmf::ContentPart::make(std::move(edited)));
            }
        }
        return ProcessorResult::modify(out);
    }
};

void register_kinds(cmfpipe::Registrar& r) {
    r.add_processor("record", [](const cmfpipe::Json&) { return std::make_unique<Record>(); });
    r.add_processor("label_first",
                    [](const cmfpipe::Json&) { return std::make_unique<LabelFirst>(); });
    r.add_processor("label_all", [](const cmfpipe::Json&) { return std::make_unique<LabelAll>(); });
    r.add_processor("edit_thinking",
                    [](const cmfpipe::Json&) { return std::make_unique<EditThinking>(); });
}

}  // namespace

CMFPIPE_PLUGIN(recording, "0.1.0", register_kinds)
