#pragma once
// Prompty Property lists (spec §2.7: inputs, outputs, a function tool's parameters) as JSON
// Schema (spec §7.1.4), the form every provider's tool and structured-output fields take.
//
// Property JSON: {name, kind, description, required, enumValues, items, properties, oneOf, anyOf}.
// A list may be given as an array of properties, as {"properties": [...]}, or as an object keyed
// by name ({"city": {"kind": "string"}}).
//
// Non-strict: `required` lists the properties with required: true (omitted when none).
// Strict (OpenAI strict mode): every object lists all its properties as required, a property that
// is not required becomes nullable (["string", "null"]; a null branch for unions), and every
// object with properties gets additionalProperties: false — recursively.
#include <string>

#include "cmfpipe/json.hpp"

namespace cmfpipe::wire {

// `where` names the list in error messages ("tool get_weather parameters").
// ValueError: a property without a name, a union with neither or both of oneOf/anyOf.
Json properties_to_schema(const Json& properties, bool strict, const std::string& where);

// The parameter schema of a function tool ({name, kind, description, parameters, strict,
// bindings}) with bound parameters removed from properties and required (spec §2.9.1).
// Strict when the tool says strict: true (then additionalProperties is false at the top too).
Json tool_parameters_schema(const Json& tool);

// Whether a tool asks for strict mode (tool.strict == true).
bool tool_is_strict(const Json& tool);

}  // namespace cmfpipe::wire
