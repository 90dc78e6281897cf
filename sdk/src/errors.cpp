#include "cmfpipe/errors.hpp"

namespace cmfpipe {

std::string SourceLocation::to_string() const {
    std::string out = file;
    if (line > 0) {
        if (!out.empty()) out += ':';
        out += std::to_string(line);
        if (column > 0) out += ':' + std::to_string(column);
    }
    return out;
}

namespace {
std::string with_location(const std::string& message, const SourceLocation& where) {
    std::string prefix = where.to_string();
    return prefix.empty() ? message : prefix + ": " + message;
}
}  // namespace

Error::Error(const std::string& message, SourceLocation where)
    : std::runtime_error(with_location(message, where)),
      message_(message),
      where_(std::move(where)) {}

Error::~Error() = default;
const char* Error::kind() const noexcept {
    return "Error";
}

#define CMFPIPE_ERROR_KIND(Class)              \
    Class::~Class() = default;                 \
    const char* Class::kind() const noexcept { \
        return #Class;                         \
    }

CMFPIPE_ERROR_KIND(InvokerError)
CMFPIPE_ERROR_KIND(ValueError)
CMFPIPE_ERROR_KIND(ConfigError)
CMFPIPE_ERROR_KIND(TierViolation)
CMFPIPE_ERROR_KIND(PluginError)
CMFPIPE_ERROR_KIND(LimitExceeded)

#undef CMFPIPE_ERROR_KIND

}  // namespace cmfpipe
