// Extensions: emptiness and value equality through the slot pointers.
#include "cmfpipe/cmf/message.hpp"

namespace cmfpipe::cmf {
namespace {

// Same pointer, or both present with equal values.
template <class T>
bool same_value(const std::shared_ptr<const T>& a, const std::shared_ptr<const T>& b) {
    if (a == b) return true;
    if (!a || !b) return false;
    return *a == *b;
}

// objects/data: null means empty.
template <class Map>
bool same_map(const std::shared_ptr<const Map>& a, const std::shared_ptr<const Map>& b) {
    if (a == b) return true;
    const bool a_empty = !a || a->empty();
    const bool b_empty = !b || b->empty();
    if (a_empty || b_empty) return a_empty && b_empty;
    return *a == *b;
}

}  // namespace

bool SecurityExtension::operator==(const SecurityExtension& other) const {
    return labels == other.labels && classification == other.classification &&
           same_value(subject, other.subject) && same_map(objects, other.objects) &&
           same_map(data, other.data);
}

bool Extensions::empty() const {
    return !request && !agent && !http && !security && !delegation && !mcp && !completion &&
           !provenance && !llm && !framework && !meta && !custom;
}

bool Extensions::operator==(const Extensions& other) const {
    return same_value(request, other.request) && same_value(agent, other.agent) &&
           same_value(http, other.http) && same_value(security, other.security) &&
           same_value(delegation, other.delegation) && same_value(mcp, other.mcp) &&
           same_value(completion, other.completion) && same_value(provenance, other.provenance) &&
           same_value(llm, other.llm) && same_value(framework, other.framework) &&
           same_value(meta, other.meta) && same_value(custom, other.custom);
}

}  // namespace cmfpipe::cmf
