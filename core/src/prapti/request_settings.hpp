#pragma once
// A Prapti document's configuration lines, applied in document order, as the request's model id
// and options (the keys and actions of cmfpipe/core/prapti/document.hpp).
#include <optional>
#include <string>
#include <vector>

#include "cmfpipe/core/prapti/document.hpp"
#include "cmfpipe/core/prompty/agent.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe::prapti {

class RequestSettings {
  public:
    // One line as the prapti parser reports it (an element of custom.prapti.configuration):
    // {file, line, column, key, value, value_column} or {file, line, column, action, arguments}.
    void apply(const Json& line);

    // The model the lines set; nothing when they set none.
    std::optional<prompty::Model> model() const;
    std::vector<Notice>& notices() { return notices_; }

  private:
    void assign(const std::string& key, const Json& value, const SourceLocation& key_at,
                const SourceLocation& value_at);

    std::optional<std::string> id_;
    Json options_ = Json::object();
    std::vector<Notice> notices_;
};

}  // namespace cmfpipe::prapti
