// The benchmark's processors, linked in as a built-in plugin: "pass" lets every message through,
// "append_label" adds the label SEEN to every message (a real copy-on-write change).
#include "cmfpipe/plugin.hpp"

namespace {

class Pass final : public cmfpipe::Processor {
    cmfpipe::ProcessorResult process(const cmfpipe::cmf::Message&,
                                     const cmfpipe::ProcessorContext&) const override {
        return cmfpipe::ProcessorResult::allow();
    }
};

class AppendLabel final : public cmfpipe::Processor {
    cmfpipe::ProcessorResult process(const cmfpipe::cmf::Message& m,
                                     const cmfpipe::ProcessorContext&) const override {
        return cmfpipe::ProcessorResult::modify(m.with_labels_added({"SEEN"}));
    }
};

void register_kinds(cmfpipe::Registrar& r) {
    r.add_processor("pass", [](const cmfpipe::Json&) { return std::make_unique<Pass>(); });
    r.add_processor("append_label",
                    [](const cmfpipe::Json&) { return std::make_unique<AppendLabel>(); });
}

}  // namespace

CMFPIPE_PLUGIN(bench, "0.1.0", register_kinds)
