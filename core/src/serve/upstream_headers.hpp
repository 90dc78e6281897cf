#pragma once
// The fields of a request to an upstream, in order, as the head is written from them
// (upstream_request_head.hpp). Names and values are views, not copies: of the client's request
// (upstream_request_headers; whoever makes the call keeps that request alive until the call is
// over, as the proxy's coroutine does with its own) or of literals. The one value held here is
// cmfpipe's request id (add_request_id), read where its field was added: the object may move.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cmfpipe::serve {

class UpstreamHeaders {
  public:
    void reserve(std::size_t fields) { fields_.reserve(fields); }
    // A field whose name and value outlive the call.
    void emplace_back(std::string_view name, std::string_view value) {
        fields_.push_back({name, value, false});
    }
    // The request id's field: `name` outlives the call, `id` is kept here.
    void add_request_id(std::string_view name, std::string id) {
        request_id_ = std::move(id);
        fields_.push_back({name, {}, true});
    }
    std::size_t size() const { return fields_.size(); }
    std::string_view name(std::size_t i) const { return fields_[i].name; }
    std::string_view value(std::size_t i) const {
        return fields_[i].request_id ? std::string_view(request_id_) : fields_[i].value;
    }

  private:
    struct Field {
        std::string_view name;
        std::string_view value;
        bool request_id;  // the value is request_id_
    };
    std::vector<Field> fields_;
    std::string request_id_;
};

}  // namespace cmfpipe::serve
