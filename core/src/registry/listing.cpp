// registry_listing (registry.hpp): the registry as JSON, for `plugins --json` and GET /v1/plugins.
#include "cmfpipe/core/registry.hpp"

namespace cmfpipe {

Json registry_listing(const Registry& registry) {
    Json out = {{"plugins", Json::array()}, {"problems", Json::array()}};
    for (const auto& k : registry.list()) {
        out["plugins"].push_back({{"type", to_string(k.type)},
                                  {"kind", k.kind},
                                  {"plugin", k.origin.name},
                                  {"version", k.origin.version},
                                  {"build_id", k.origin.build_id},
                                  {"file", k.origin.file.string()}});
    }
    for (const auto& p : registry.problems())
        out["problems"].push_back({{"file", p.file.string()}, {"reason", p.reason}});
    return out;
}

}  // namespace cmfpipe
