// Out-of-line destructors: they anchor each interface's vtable and type information in
// libcmfpipe_sdk.so, so host and plugins agree on one copy.
#include "cmfpipe/adapter.hpp"
#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/host_services.hpp"
#include "cmfpipe/parser.hpp"
#include "cmfpipe/plugin.hpp"
#include "cmfpipe/processor.hpp"
#include "cmfpipe/renderer.hpp"

namespace cmfpipe {

Renderer::~Renderer() = default;
Parser::~Parser() = default;
Adapter::~Adapter() = default;

void Adapter::from_wire_each(std::string_view completion, const Json& options,
                             const std::function<void(cmf::Message)>& sink) const {
    std::vector<cmf::Message> messages = from_wire(completion, options);
    for (cmf::Message& m : messages) {
        sink(std::move(m));
        m = cmf::Message();  // released once handed over
    }
}
namespace {
[[noreturn]] void no_provider_bodies() {
    throw InvokerError("this adapter does not read provider request or response bodies");
}
}  // namespace

std::vector<cmf::Message> Adapter::request_messages(const Json&, const Json&) const {
    no_provider_bodies();
}
Json Adapter::with_request_messages(const Json&, const std::vector<cmf::Message>&,
                                    const Json&) const {
    no_provider_bodies();
}
Json Adapter::with_response_messages(const Json&, const std::vector<cmf::Message>&,
                                     const Json&) const {
    no_provider_bodies();
}

std::unique_ptr<GuardedStream> Adapter::guard_stream(const Json&, StreamGuard,
                                                     const StreamGuardOptions&, const Json&) const {
    throw InvokerError("this adapter does not guard provider streams");
}
GuardedStream::~GuardedStream() = default;
UpstreamBreak::~UpstreamBreak() = default;

std::vector<wire::SseEvent> GuardedStream::push_all(std::span<wire::SseEvent> events) {
    std::vector<wire::SseEvent> out;
    for (const wire::SseEvent& event : events) {
        if (ended()) break;
        std::vector<wire::SseEvent> now = push(event);
        if (out.empty()) {
            out = std::move(now);
        } else {
            out.insert(out.end(), std::make_move_iterator(now.begin()),
                       std::make_move_iterator(now.end()));
        }
    }
    return out;
}

Processor::~Processor() = default;
Registrar::~Registrar() = default;
HostServices::~HostServices() = default;

bool Parser::matches_role_marker(std::string_view, MarkerFit) const {
    return false;
}

std::string Parser::prepare_template(std::string_view template_text, const Json&,
                                     RequestContext&) const {
    return std::string(template_text);
}

}  // namespace cmfpipe
