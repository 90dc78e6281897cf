// Conversations for round trips from a seed (see conversation_generator.hpp).
#include "conversation_generator.hpp"

#include <set>
#include <string>

namespace cmfpipe::testing {

std::uint32_t SeededDraws::below(std::uint32_t n) {
    // The largest multiple of n that 32 bits hold: draws at or above it would favour small
    // values, so they are drawn again.
    const std::uint64_t span = std::uint64_t{1} << 32;
    const std::uint64_t limit = span - span % n;
    for (;;) {
        const std::uint64_t x = engine_();
        if (x < limit) return static_cast<std::uint32_t>(x % n);
    }
}

namespace {

const std::vector<std::string> verbs = {"get", "find", "set", "list", "search", "convert", "book"};
const std::vector<std::string> nouns = {"weather", "flight", "user_profile", "stock_price",
                                        "recipe",  "time",   "note",         "route"};
const std::vector<std::string> property_names = {
    "city",   "query",    "count", "ratio", "enabled", "note",      "tags",
    "filter", "location", "limit", "title", "options", "reference", "scores"};
// What string values are made of: what breaks naive quoting, escaping and splitting.
const std::vector<std::string> string_pieces = {"Paris",
                                                "two words",
                                                "say \"hi\"",
                                                "it's",
                                                "line one\nline two",
                                                "back\\slash",
                                                "naïve café",
                                                "東京",
                                                "emoji 🌍",
                                                "tab\there",
                                                "{\"json\": 1}",
                                                "a < b & c > d",
                                                "comma, separated",
                                                "50% off",
                                                "trailing space ",
                                                "[1, 2]",
                                                "x=1"};
const std::vector<std::string> words = {"Let",     "me",   "check", "that", "now",
                                        "first",   "the",  "tools", "say",  "données",
                                        "quickly", "then", "answer"};

enum class Kind { string, integer, number, boolean, null, object, array };
const std::vector<Kind> kinds = {Kind::string, Kind::integer, Kind::number, Kind::boolean,
                                 Kind::null,   Kind::object,  Kind::array};

std::string draw_string(SeededDraws& draw) {
    std::string out = draw.pick(string_pieces);
    while (draw.one_in(3)) out += " " + draw.pick(string_pieces);
    return out;
}

// Integers of either sign and several widths; numbers with a fraction a binary float holds
// exactly, so that every renderer prints and every reader reads the same value.
Json draw_scalar(SeededDraws& draw, Kind kind) {
    switch (kind) {
        case Kind::string:
            return draw_string(draw);
        case Kind::integer: {
            const std::int64_t magnitude = draw.one_in(2)   ? draw.below(10)
                                           : draw.one_in(2) ? draw.below(1000)
                                                            : draw.below(2000000);
            return draw.one_in(4) ? -magnitude : magnitude;
        }
        case Kind::number: {
            const double value = (static_cast<double>(draw.below(4000)) * 2 + 1) / 8.0;
            return draw.one_in(3) ? -value : value;
        }
        case Kind::boolean:
            return draw.one_in(2);
        default:
            return nullptr;
    }
}

struct Property {
    std::string name;
    Kind kind;
    Json schema;
};

Json scalar_schema(Kind kind) {
    switch (kind) {
        case Kind::string:
            return {{"type", "string"}};
        case Kind::integer:
            return {{"type", "integer"}};
        case Kind::number:
            return {{"type", "number"}};
        case Kind::boolean:
            return {{"type", "boolean"}};
        default:
            return {{"type", "null"}};
    }
}

const std::vector<Kind> scalar_kinds = {Kind::string, Kind::integer, Kind::number, Kind::boolean};

Property draw_property(SeededDraws& draw, const std::string& name) {
    const Kind kind = draw.pick(kinds);
    Property property{name, kind, scalar_schema(kind)};
    if (kind == Kind::object) {
        Json properties = Json::object();
        Json required = Json::array();
        for (const std::string field : {"label", "level", "active"}) {
            if (draw.one_in(3)) continue;
            const Kind field_kind = field == std::string("label")   ? Kind::string
                                    : field == std::string("level") ? Kind::integer
                                                                    : Kind::boolean;
            properties[field] = scalar_schema(field_kind);
            required.push_back(field);
        }
        if (properties.empty()) {
            properties["label"] = scalar_schema(Kind::string);
            required.push_back("label");
        }
        property.schema = {{"type", "object"}, {"properties", properties}, {"required", required}};
    } else if (kind == Kind::array) {
        property.schema = {{"type", "array"}, {"items", scalar_schema(draw.pick(scalar_kinds))}};
    }
    return property;
}

Json draw_value(SeededDraws& draw, const Json& schema) {
    const std::string type = schema.value("type", "null");
    if (type == "object") {
        Json out = Json::object();
        for (const auto& [key, field] : schema["properties"].items())
            out[key] = draw_value(draw, field);
        return out;
    }
    if (type == "array") {
        Json out = Json::array();
        for (std::uint32_t n = draw.below(4); n > 0; --n)
            out.push_back(draw_value(draw, schema["items"]));
        return out;
    }
    return draw_scalar(draw, type == "string"    ? Kind::string
                             : type == "integer" ? Kind::integer
                             : type == "number"  ? Kind::number
                             : type == "boolean" ? Kind::boolean
                                                 : Kind::null);
}

struct Tool {
    std::string name;
    std::vector<Property> properties;
    std::set<std::string> required;
};

Tool draw_tool(SeededDraws& draw, const std::set<std::string>& taken) {
    Tool tool;
    do {
        // One draw a statement, the noun first: the operands of + are evaluated in no set order
        // (GCC took the noun first when this was one expression; the seed's conversations stay).
        const std::string& noun = draw.pick(nouns);
        tool.name = draw.pick(verbs) + "_" + noun;
        if (draw.one_in(5)) tool.name += "_v" + std::to_string(2 + draw.below(3));
    } while (taken.count(tool.name));
    std::set<std::string> used;
    for (std::uint32_t n = 1 + draw.below(4); n > 0; --n) {
        std::string name = draw.pick(property_names);
        if (!used.insert(name).second) continue;
        tool.properties.push_back(draw_property(draw, name));
        if (!draw.one_in(3)) tool.required.insert(name);
    }
    return tool;
}

Json tool_json(const Tool& tool) {
    Json properties = Json::object();
    Json required = Json::array();
    for (const Property& p : tool.properties) {
        properties[p.name] = p.schema;
        if (tool.required.count(p.name)) required.push_back(p.name);
    }
    return {{"type", "function"},
            {"function",
             {{"name", tool.name},
              {"description", "Generated tool " + tool.name},
              {"parameters",
               {{"type", "object"}, {"properties", properties}, {"required", required}}}}}};
}

std::string draw_id(SeededDraws& draw) {
    static const std::string alphabet =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    std::string id;
    for (int i = 0; i < 9; ++i)
        id += alphabet[draw.below(static_cast<std::uint32_t>(alphabet.size()))];
    return id;
}

std::string draw_sentence(SeededDraws& draw) {
    std::string out = draw.pick(words);
    for (std::uint32_t n = 2 + draw.below(6); n > 0; --n) out += " " + draw.pick(words);
    return out + ".";
}

RoundTripCase draw_case(SeededDraws& draw, std::size_t index) {
    RoundTripCase c;
    c.name = "generated_" + std::to_string(index);
    c.question = "Please help with request " + std::to_string(index) + ".";
    std::vector<Tool> tools;
    std::set<std::string> names;
    for (std::uint32_t n = 1 + draw.below(3); n > 0; --n) {
        tools.push_back(draw_tool(draw, names));
        names.insert(tools.back().name);
    }
    c.tools = Json::array();
    for (const Tool& tool : tools) c.tools.push_back(tool_json(tool));
    if (draw.one_in(3)) c.assistant.reasoning = draw_sentence(draw);
    if (draw.one_in(3)) c.assistant.text = draw_sentence(draw);
    for (std::uint32_t n = 1 + draw.below(3); n > 0; --n) {
        const Tool& tool = draw.pick(tools);
        Json arguments = Json::object();
        for (const Property& p : tool.properties)
            if (tool.required.count(p.name) || draw.one_in(2))
                arguments[p.name] = draw_value(draw, p.schema);
        c.assistant.calls.push_back({draw_id(draw), tool.name, std::move(arguments)});
    }
    return c;
}

}  // namespace

std::vector<RoundTripCase> generate_conversations(std::uint32_t seed, std::size_t count) {
    SeededDraws draw(seed);
    std::vector<RoundTripCase> out;
    for (std::size_t i = 0; i < count; ++i) out.push_back(draw_case(draw, i));
    return out;
}

}  // namespace cmfpipe::testing
