// validate_inputs (spec §12.2).
#include "cmfpipe/core/prompty/validation.hpp"

#include "cmfpipe/errors.hpp"

namespace cmfpipe::prompty {

Json validate_inputs(const Agent& agent, const Json& inputs) {
    if (!inputs.is_null() && !inputs.is_object()) {
        throw ValueError("inputs must be a JSON object of name -> value, not " +
                         std::string(inputs.type_name()));
    }
    Json validated = inputs.is_null() ? Json::object() : inputs;
    if (!agent.inputs) return validated;
    // Room for the defaults: a growing ordered object copies its members (const keys).
    validated.get_ref<Json::object_t&>().reserve(validated.size() + agent.inputs->size());
    for (const Property& p : *agent.inputs) {
        if (validated.contains(p.name)) {
            // null would render as "None" and reach the model as if it were an answer.
            if (p.is_required() && validated[p.name].is_null())
                throw ValueError("Required input is null: " + p.name, {agent.source});
            continue;
        }
        if (!p.default_value.is_null()) {
            validated[p.name] = p.default_value;
        } else if (p.is_required()) {
            throw ValueError("Missing required input: " + p.name, {agent.source});
        }
    }
    return validated;
}

}  // namespace cmfpipe::prompty
