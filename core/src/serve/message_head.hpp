#pragma once
// A message's head (start line, fields, blank line) as Beast's serializer writes it, appended to a
// reused string: a small answer or request goes out as two pieces (head, body) in one send,
// without the serializer's layers of buffer views (~5k instructions a message).
#include <algorithm>
#include <array>
#include <boost/asio/buffer.hpp>
#include <string>

#include "http_answer.hpp"

namespace cmfpipe::serve {

namespace message_head_detail {
inline void append_fields(std::string& out, const http::fields& fields) {
    for (const auto& field : fields) {
        out += std_view(field.name_string());
        out += ": ";
        out += std_view(field.value());
        out += "\r\n";
    }
    out += "\r\n";
}
inline void append_version(std::string& out, unsigned version) {
    out += "HTTP/";
    out += static_cast<char>('0' + version / 10);
    out += '.';
    out += static_cast<char>('0' + version % 10);
}
}  // namespace message_head_detail

inline void append_message_head(std::string& out, const http::request_header<>& header) {
    out += std_view(header.method_string());
    out += ' ';
    out += std_view(header.target());
    out += ' ';
    message_head_detail::append_version(out, header.version());
    out += "\r\n";
    message_head_detail::append_fields(out, header);
}

inline void append_message_head(std::string& out, const http::response_header<>& header) {
    message_head_detail::append_version(out, header.version());
    const unsigned code = header.result_int();
    out += ' ';
    out += static_cast<char>('0' + code / 100);
    out += static_cast<char>('0' + (code / 10) % 10);
    out += static_cast<char>('0' + code % 10);
    out += ' ';
    out += std_view(header.reason());
    out += "\r\n";
    message_head_detail::append_fields(out, header);
}

// What is left of a message sent as (head, body) once `sent` bytes of it went out.
inline std::array<boost::asio::const_buffer, 2> unsent_pieces(
    std::array<boost::asio::const_buffer, 2> pieces, std::size_t sent) {
    const std::size_t of_head = std::min(sent, pieces[0].size());
    pieces[0] += of_head;
    pieces[1] += sent - of_head;
    return pieces;
}

}  // namespace cmfpipe::serve
