// host/json_text_writer.hpp.
#include "json_text_writer.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <nlohmann/detail/output/output_adapters.hpp>
#include <nlohmann/detail/output/serializer.hpp>

#include "cmfpipe/json_string_bytes.hpp"
#include "cmfpipe/utf8.hpp"

namespace cmfpipe::host {

// What the writer leaves to nlohmann: its serializer, writing into the same string (checked once
// the delegated value is written: floats are short; a string is checked by its size first).
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
    const char* const end = text.data() + text.size();
    const char* first = text.data();
    first = json_string_plain_end(first, end);
    if (first == end) {  // plain text (the common case): copied whole
        text_.push_back('"');
        text_.append(text);
        text_.push_back('"');
        return;
    }
    if (find_invalid_utf8(std::string_view(first, static_cast<std::size_t>(end - first))) !=
        std::string_view::npos) {
        // nlohmann's replacement of invalid sequences, exactly.
        if (!fallback_) fallback_ = std::make_unique<Fallback>(text_);
        fallback_->dump(Json(text), step_, 0);
        check();
        return;
    }
    text_.push_back('"');
    const char* run = text.data();  // the start of the bytes not yet copied
    for (const char* p = first; p != end; ++p) {
        const auto c = static_cast<unsigned char>(*p);
        if (c >= 0x20 && c != '"' && c != '\\') continue;  // valid UTF-8 and DEL stay as they are
        text_.append(run, p);
        run = p + 1;
        switch (c) {
            case '"':
                text_.append("\\\"");
                break;
            case '\\':
                text_.append("\\\\");
                break;
            case '\b':
                text_.append("\\b");
                break;
            case '\t':
                text_.append("\\t");
                break;
            case '\n':
                text_.append("\\n");
                break;
            case '\f':
                text_.append("\\f");
                break;
            case '\r':
                text_.append("\\r");
                break;
            default: {
                static constexpr char hex[] = "0123456789abcdef";
                const char escape[] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xF]};
                text_.append(escape, sizeof escape);
            }
        }
        check();
    }
    text_.append(run, end);
    text_.push_back('"');
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
