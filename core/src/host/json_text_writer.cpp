// host/json_text_writer.hpp.
#include "json_text_writer.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <nlohmann/detail/output/output_adapters.hpp>
#include <nlohmann/detail/output/serializer.hpp>

#include "cmfpipe/json_string_writer.hpp"

namespace cmfpipe::host {

// What the writer leaves to nlohmann: its serializer (binary values), writing into the same
// string (checked once the delegated value is written).
class JsonTextWriter::Fallback {
  public:
    explicit Fallback(std::string& text)
        : serializer_(nlohmann::detail::output_adapter<char>(text), ' ',
                      Json::error_handler_t::replace) {}
    void dump(const Json& value, unsigned indent_step, unsigned indent) {
        serializer_.dump(value, true, false, indent_step, indent);
    }

  private:
    nlohmann::detail::serializer<Json> serializer_;
};

JsonTextWriter::JsonTextWriter(std::string& text, const AnswerBound& bound, unsigned indent_step)
    : text_(text), bound_(bound), step_(indent_step) {}

JsonTextWriter::~JsonTextWriter() = default;

void JsonTextWriter::raw(std::string_view text) {
    bound_.check(text_.size() + text.size(), "as it was written");
    text_.append(text);
}

void JsonTextWriter::indent(unsigned spaces) {
    text_.append(spaces, ' ');
}

void JsonTextWriter::delegate(const Json& value, unsigned indent) {
    if (!fallback_) fallback_ = std::make_unique<Fallback>(text_);
    fallback_->dump(value, step_, indent);
    check();
}

void JsonTextWriter::string(const std::string& text) {
    // The escaped text is at least as long as the text: over the bound before it is written.
    bound_.check(text_.size() + text.size() + 2, "as it was written");
    append_json_string(text_, text, [this] { check(); });
}

void JsonTextWriter::value(const Json& value, unsigned indent_now) {
    switch (value.type()) {
        case Json::value_t::object: {
            const auto& members = value.get_ref<const Json::object_t&>();
            if (members.empty()) {
                raw("{}");
                return;
            }
            const unsigned inner = indent_now + step_;
            text_.append("{\n");
            bool first = true;
            for (const auto& [key, member] : members) {
                if (!first) text_.append(",\n");
                first = false;
                indent(inner);
                string(key);
                text_.append(": ");
                this->value(member, inner);
            }
            text_.push_back('\n');
            indent(indent_now);
            text_.push_back('}');
            check();
            return;
        }
        case Json::value_t::array: {
            const auto& elements = value.get_ref<const Json::array_t&>();
            if (elements.empty()) {
                raw("[]");
                return;
            }
            const unsigned inner = indent_now + step_;
            text_.append("[\n");
            bool first = true;
            for (const Json& element : elements) {
                if (!first) text_.append(",\n");
                first = false;
                indent(inner);
                this->value(element, inner);
            }
            text_.push_back('\n');
            indent(indent_now);
            text_.push_back(']');
            check();
            return;
        }
        case Json::value_t::string:
            string(value.get_ref<const std::string&>());
            return;
        case Json::value_t::boolean:
            raw(value.get<bool>() ? "true" : "false");
            return;
        case Json::value_t::null:
            raw("null");
            return;
        case Json::value_t::number_integer:
        case Json::value_t::number_unsigned: {
            char digits[24];
            const auto written =
                value.is_number_unsigned()
                    ? std::to_chars(digits, digits + sizeof digits, value.get<std::uint64_t>())
                    : std::to_chars(digits, digits + sizeof digits, value.get<std::int64_t>());
            raw(std::string_view(digits, static_cast<std::size_t>(written.ptr - digits)));
            return;
        }
        case Json::value_t::number_float: {
            // As nlohmann writes a double: its shortest round-trip form, "null" when not finite.
            const double x = value.get<double>();
            if (!std::isfinite(x)) {
                raw("null");
                return;
            }
            char digits[64];
            const char* last = nlohmann::detail::to_chars(digits, digits + sizeof digits, x);
            raw(std::string_view(digits, static_cast<std::size_t>(last - digits)));
            return;
        }
        default:  // binary, discarded
            delegate(value, indent_now);
    }
}

}  // namespace cmfpipe::host
