#pragma once
// A message's head (start line, fields, blank line) as Beast's serializer writes it, appended to a
// reused string: a small answer or request goes out as two pieces (head, body) in one send,
// without the serializer's layers of buffer views (~5k instructions a message).
#include <algorithm>
#include <array>
#include <boost/asio/buffer.hpp>
#include <boost/beast/core/string.hpp>
#include <charconv>
#include <string>
#include <string_view>

#include "head_pieces.hpp"
#include "http_answer.hpp"

namespace cmfpipe::serve {

namespace message_head_detail {
template <class Put>
void put_fields(Put& put, const http::fields& fields) {
    for (const auto& field : fields) {
        put(std_view(field.name_string()));
        put(": ");
        put(std_view(field.value()));
        put("\r\n");
    }
}
template <class Put>
void put_status_line(Put& put, unsigned version, unsigned code, std::string_view reason) {
    put("HTTP/");
    put(static_cast<char>('0' + version / 10));
    put('.');
    put(static_cast<char>('0' + version % 10));
    put(' ');
    put(static_cast<char>('0' + code / 100));
    put(static_cast<char>('0' + (code / 10) % 10));
    put(static_cast<char>('0' + code % 10));
    put(' ');
    put(reason);
    put("\r\n");
}
}  // namespace message_head_detail

inline void append_message_head(std::string& out, const http::request_header<>& header) {
    head_pieces::append(out, [&](auto& put) {
        const unsigned version = header.version();
        put(std_view(header.method_string()));
        put(' ');
        put(std_view(header.target()));
        put(" HTTP/");
        put(static_cast<char>('0' + version / 10));
        put('.');
        put(static_cast<char>('0' + version % 10));
        put("\r\n");
        message_head_detail::put_fields(put, header);
        put("\r\n");
    });
}

inline void append_message_head(std::string& out, const http::response_header<>& header) {
    head_pieces::append(out, [&](auto& put) {
        message_head_detail::put_status_line(put, header.version(), header.result_int(),
                                             std_view(header.reason()));
        message_head_detail::put_fields(put, header);
        put("\r\n");
    });
}

// The head of an answer to a client as Beast made it from `header` by set(Server: cmfpipe),
// set(`id_field`: `id`), keep_alive(`keep_alive`), prepare_payload() for a body of `body_size`
// bytes, then append_message_head: those fields last, after the rest in order (a Server or
// `id_field` of the header's left out: set() replaces them), without a heap element for each.
// False, and nothing appended, for an answer those calls treat apart (not HTTP/1.1, a status
// without a body, a Connection, Content-Length or Transfer-Encoding field): Beast's way then.
inline bool append_answer_head(std::string& out, const http::response_header<>& header,
                               std::string_view id_field, std::string_view id, bool keep_alive,
                               std::size_t body_size) {
    const unsigned code = header.result_int();
    if (header.version() != 11 || code / 100 == 1 || code == 204 || code == 304) return false;
    for (const auto& field : header) {
        const http::field name = field.name();
        if (name == http::field::connection || name == http::field::content_length ||
            name == http::field::transfer_encoding)
            return false;
    }
    char digits[24];
    const std::string_view length(
        digits, static_cast<std::size_t>(
                    std::to_chars(digits, digits + sizeof digits, body_size).ptr - digits));
    head_pieces::append(out, [&](auto& put) {
        message_head_detail::put_status_line(put, 11, code, std_view(header.reason()));
        for (const auto& field : header) {
            if (field.name() == http::field::server ||
                (field.name() == http::field::unknown &&
                 boost::beast::iequals(field.name_string(), beast_view(id_field))))
                continue;
            put(std_view(field.name_string()));
            put(": ");
            put(std_view(field.value()));
            put("\r\n");
        }
        put("Server: cmfpipe\r\n");
        put(id_field);
        put(": ");
        put(id);
        put(keep_alive ? "\r\nContent-Length: " : "\r\nConnection: close\r\nContent-Length: ");
        put(length);
        put("\r\n\r\n");
    });
    return true;
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
