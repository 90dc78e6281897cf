// parser kind "prompty": rendered Prompty text -> CMF messages (Prompty §6).
//
// Options (per call, over the factory's config, over the defaults):
//   strict         bool, default true. Author role markers get the request's nonce before
//                  rendering (prepare_template); at parse time a marker without it came from an
//                  input and is a ValueError. Off: every marker line splits messages.
//   template_name  string, names the text in error locations (default "<rendered>").
#include <memory>
#include <string>

#include "author_markers.hpp"
#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/plugin.hpp"
#include "rich_expansion.hpp"
#include "role_marker.hpp"
#include "segments.hpp"

namespace cmfpipe::prompty_parser {
namespace {

bool bool_option(const Json& options, const Json& config, const char* key, bool fallback) {
    for (const Json* source : {&options, &config}) {
        if (!source->is_object()) continue;
        auto it = source->find(key);
        if (it == source->end() || it->is_null()) continue;
        if (!it->is_boolean()) {
            throw ValueError(std::string("prompty parser option '") + key +
                             "' must be true or false, not " + it->dump());
        }
        return it->get<bool>();
    }
    return fallback;
}

// Bytes of the marker nonce prepare_template draws when the host has not drawn one.
constexpr std::size_t own_marker_nonce_bytes = 16;

class PromptyParser final : public Parser {
  public:
    explicit PromptyParser(Json config) : config_(std::move(config)) {}

    bool matches_role_marker(std::string_view line, MarkerFit fit) const override {
        return fit == MarkerFit::whole_line ? match_role_marker(line).has_value()
                                            : opens_with_role_marker(line);
    }

    std::string prepare_template(std::string_view template_text, const Json& options,
                                 RequestContext& request) const override {
        if (!bool_option(options, config_, "strict", true)) return std::string(template_text);
        if (request.marker_nonce.empty()) request.marker_nonce = random_hex(own_marker_nonce_bytes);
        return mark_author_markers(template_text, request.marker_nonce);
    }

    std::vector<cmf::Message> parse(std::string_view text, const Json& options,
                                    const RequestContext& request) const override {
        SegmentOptions segment_options;
        segment_options.strict = bool_option(options, config_, "strict", true);
        segment_options.expected_nonce = request.marker_nonce;
        std::string name = "<rendered>";
        if (options.is_object() && options.contains("template_name") &&
            options["template_name"].is_string()) {
            name = options["template_name"].get<std::string>();
        }
        segment_options.source_name = name;
        return expand_segments(split_segments(text, segment_options), request);
    }

  private:
    Json config_;
};

void register_kinds(Registrar& registrar) {
    registrar.add_parser(
        "prompty", [](const Json& config) { return std::make_unique<PromptyParser>(config); });
}

}  // namespace
}  // namespace cmfpipe::prompty_parser

CMFPIPE_PLUGIN(prompty, "0.1.0", cmfpipe::prompty_parser::register_kinds)
