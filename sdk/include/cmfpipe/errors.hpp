#pragma once
// Every error cmfpipe raises derives from cmfpipe::Error and says what failed and where.
// The classes have out-of-line destructors so that their type information lives once, in
// libcmfpipe_sdk.so, and exceptions thrown in a plugin are caught by type in the host.
#include <stdexcept>
#include <string>

namespace cmfpipe {

// Where in a file (or template) something went wrong. line and column are 1-based; 0 = unknown.
struct SourceLocation {
    std::string file;
    int line = 0;
    int column = 0;

    bool empty() const { return file.empty() && line == 0; }
    // "file:line:col", "file:line", "line:col" or "" depending on what is known.
    std::string to_string() const;
};

class Error : public std::runtime_error {
  public:
    explicit Error(const std::string& message, SourceLocation where = {});
    ~Error() override;
    // The message without the location prefix.
    const std::string& message() const { return message_; }
    const SourceLocation& where() const { return where_; }
    // A short stable name of the error class ("ValueError"), for CLI output and JSON bodies.
    virtual const char* kind() const noexcept;

  private:
    std::string message_;
    SourceLocation where_;
};

// Unknown (type, kind) in the registry; a plugin that cannot be loaded.
class InvokerError : public Error {
  public:
    using Error::Error;
    ~InvokerError() override;
    const char* kind() const noexcept override;
};

// Template syntax, bad input, nonce mismatch, malformed CMF JSON.
class ValueError : public Error {
  public:
    using Error::Error;
    ~ValueError() override;
    const char* kind() const noexcept override;
};

// Pipeline YAML that cannot be used; where carries line:col.
class ConfigError : public Error {
  public:
    using Error::Error;
    ~ConfigError() override;
    const char* kind() const noexcept override;
};

// A processor changed a slot its tier does not allow it to change.
class TierViolation : public Error {
  public:
    using Error::Error;
    ~TierViolation() override;
    const char* kind() const noexcept override;
};

// A plugin threw something that is not a cmfpipe::Error.
class PluginError : public Error {
  public:
    using Error::Error;
    ~PluginError() override;
    const char* kind() const noexcept override;
};

// A sandbox bound (output size, loop iterations, recursion depth, ...) was hit.
class LimitExceeded : public Error {
  public:
    using Error::Error;
    ~LimitExceeded() override;
    const char* kind() const noexcept override;
};

}  // namespace cmfpipe
