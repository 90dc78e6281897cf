// Host-side guards around plugin objects (see plugin_guard.hpp).
#include "plugin_guard.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <exception>
#include <typeinfo>
#include <utility>
#include <vector>

#include "cmfpipe/body_text_reader.hpp"
#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/errors.hpp"

namespace cmfpipe {
namespace {

// The C++ type of the exception being handled ("int"), for an exception that is not a
// std::exception and so has no message of its own.
std::string current_exception_type() {
    const std::type_info* type = abi::__cxa_current_exception_type();
    if (!type) return "unknown";
    int status = 0;
    char* demangled = abi::__cxa_demangle(type->name(), nullptr, nullptr, &status);
    std::string name = status == 0 && demangled ? demangled : type->name();
    std::free(demangled);
    return name;
}

// Calls into the plugin; whatever it throws leaves as a cmfpipe::Error.
template <class Call>
decltype(auto) guarded(const std::string& who, Call&& call) {
    try {
        return call();
    } catch (const Error&) {
        throw;
    } catch (const std::exception& e) {
        throw PluginError(who + " threw: " + e.what());
    } catch (...) {
        throw PluginError(who + " threw: an exception of type " + current_exception_type() +
                          " (not a std::exception)");
    }
}

// Owns the plugin's object; subclasses forward each virtual through call().
template <class Interface>
class Guarded : public Interface {
  public:
    Guarded(std::shared_ptr<Interface> plugin, std::string who)
        : plugin_(std::move(plugin)), who_(std::move(who)) {}

  protected:
    template <class Call>
    decltype(auto) call(Call&& forward) const {
        return guarded(who_, [&] { return forward(*plugin_); });
    }
    const std::shared_ptr<Interface>& plugin() const { return plugin_; }
    const std::string& who() const { return who_; }

  private:
    std::shared_ptr<Interface> plugin_;
    std::string who_;
};

class GuardedRenderer final : public Guarded<Renderer> {
  public:
    using Guarded::Guarded;
    std::string render(std::string_view template_text, const Json& inputs,
                       const Json& options) const override {
        return call([&](const Renderer& r) { return r.render(template_text, inputs, options); });
    }
};

class GuardedParser final : public Guarded<Parser> {
  public:
    using Guarded::Guarded;
    std::string prepare_template(std::string_view template_text, const Json& options,
                                 RequestContext& request) const override {
        return call(
            [&](const Parser& p) { return p.prepare_template(template_text, options, request); });
    }
    std::vector<cmf::Message> parse(std::string_view text, const Json& options,
                                    const RequestContext& request) const override {
        return call([&](const Parser& p) { return p.parse(text, options, request); });
    }
    bool matches_role_marker(std::string_view line, MarkerFit fit) const override {
        return call([&](const Parser& p) { return p.matches_role_marker(line, fit); });
    }
};

// A stream an adapter made: its calls guarded like the adapter's, and the adapter (with it the
// plugin's library, whose code the stream runs) kept for as long as the stream lives.
class GuardedPluginStream final : public GuardedStream, public UpstreamBreak {
  public:
    GuardedPluginStream(std::shared_ptr<Adapter> owner, std::unique_ptr<GuardedStream> stream,
                        std::string who)
        : owner_(std::move(owner)), stream_(std::move(stream)), who_(std::move(who)) {}
    std::vector<wire::SseEvent> push(const wire::SseEvent& event) override {
        return guarded(who_, [&] { return stream_->push(event); });
    }
    std::vector<wire::SseEvent> push_all(std::span<wire::SseEvent> events) override {
        return guarded(who_, [&] { return stream_->push_all(events); });
    }
    std::vector<wire::SseEvent> finish(bool complete) override {
        return guarded(who_, [&] { return stream_->finish(complete); });
    }
    bool ended() const override {
        return guarded(who_, [&] { return stream_->ended(); });
    }
    bool content_sent() const override {
        return guarded(who_, [&] { return stream_->content_sent(); });
    }
    wire::SseEvent error_event(std::string_view type, std::string_view code,
                               std::string_view message) const override {
        return guarded(who_, [&] { return stream_->error_event(type, code, message); });
    }
    const std::string* upstream_broken() const override {
        return upstream_break_ ? upstream_break_->upstream_broken() : nullptr;
    }

  private:
    std::shared_ptr<Adapter> owner_;  // first: it outlives the stream
    std::unique_ptr<GuardedStream> stream_;
    std::string who_;
    // The plugin's stream as an UpstreamBreak, when it is one (a plain getter: nothing to guard).
    const UpstreamBreak* upstream_break_ = dynamic_cast<const UpstreamBreak*>(stream_.get());
};

// A BodyTextReader too, answering for the plugin's adapter when that is one (and declining
// otherwise), so that the host asks the guarded adapter as it would the plugin's.
class GuardedAdapter final : public Guarded<Adapter>, public BodyTextReader {
  public:
    using Guarded::Guarded;
    std::optional<std::vector<cmf::Message>> request_text_messages(
        std::string_view text, const Json& options) const override {
        if (text_reader_ == nullptr) return std::nullopt;
        return call(
            [&](const Adapter&) { return text_reader_->request_text_messages(text, options); });
    }
    std::optional<std::vector<cmf::Message>> answer_text_messages(
        std::string_view text, const Json& options) const override {
        if (text_reader_ == nullptr) return std::nullopt;
        return call(
            [&](const Adapter&) { return text_reader_->answer_text_messages(text, options); });
    }
    Json to_wire(const std::vector<cmf::Message>& messages, const Json& agent,
                 const Json& options) const override {
        return call([&](const Adapter& a) { return a.to_wire(messages, agent, options); });
    }
    std::vector<cmf::Message> from_wire(std::string_view completion,
                                        const Json& options) const override {
        return call([&](const Adapter& a) { return a.from_wire(completion, options); });
    }
    void from_wire_each(std::string_view completion, const Json& options,
                        const std::function<void(cmf::Message)>& sink) const override {
        call([&](const Adapter& a) { a.from_wire_each(completion, options, sink); });
    }
    std::vector<cmf::Message> request_messages(const Json& body,
                                               const Json& options) const override {
        return call([&](const Adapter& a) { return a.request_messages(body, options); });
    }
    Json with_request_messages(const Json& body, const std::vector<cmf::Message>& messages,
                               const Json& options) const override {
        return call(
            [&](const Adapter& a) { return a.with_request_messages(body, messages, options); });
    }
    Json with_response_messages(const Json& body, const std::vector<cmf::Message>& messages,
                                const Json& options) const override {
        return call(
            [&](const Adapter& a) { return a.with_response_messages(body, messages, options); });
    }
    std::unique_ptr<GuardedStream> guard_stream(const Json& body, StreamGuard guard,
                                                const StreamGuardOptions& stream_options,
                                                const Json& options) const override {
        std::unique_ptr<GuardedStream> stream = call([&](const Adapter& a) {
            return a.guard_stream(body, std::move(guard), stream_options, options);
        });
        return std::make_unique<GuardedPluginStream>(plugin(), std::move(stream), who());
    }

  private:
    const BodyTextReader* text_reader_ = dynamic_cast<const BodyTextReader*>(plugin().get());
};

class GuardedProcessor final : public Guarded<Processor> {
  public:
    using Guarded::Guarded;
    ProcessorResult process(const cmf::Message& message,
                            const ProcessorContext& context) const override {
        return call([&](const Processor& p) { return p.process(message, context); });
    }
    // Only a hint that lets text out sooner: a plugin that throws here cannot tell (nullopt), and
    // the holdback decides, as it does for a processor without the interface.
    std::optional<std::size_t> final_length(std::string_view text,
                                            const ProcessorContext& context) const override {
        try {
            return plugin()->final_length(text, context);
        } catch (...) {
            return std::nullopt;
        }
    }
};

}  // namespace

std::string describe_plugin_kind(const PluginOrigin& origin, std::string_view kind) {
    const std::string file = origin.file.empty() ? "built-in" : origin.file.string();
    return "plugin '" + origin.name + "' (" + file + ") kind '" + std::string(kind) + "'";
}

std::shared_ptr<Renderer> guard_plugin_object(std::shared_ptr<Renderer> renderer, std::string who) {
    return std::make_shared<GuardedRenderer>(std::move(renderer), std::move(who));
}
std::shared_ptr<Parser> guard_plugin_object(std::shared_ptr<Parser> parser, std::string who) {
    return std::make_shared<GuardedParser>(std::move(parser), std::move(who));
}
std::shared_ptr<Adapter> guard_plugin_object(std::shared_ptr<Adapter> adapter, std::string who) {
    return std::make_shared<GuardedAdapter>(std::move(adapter), std::move(who));
}
std::shared_ptr<Processor> guard_plugin_object(std::shared_ptr<Processor> processor,
                                               std::string who) {
    return std::make_shared<GuardedProcessor>(std::move(processor), std::move(who));
}

}  // namespace cmfpipe
