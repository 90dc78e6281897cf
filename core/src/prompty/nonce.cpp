// A rich input's placeholder: the sdk's token format with core's length of randomness.
#include "cmfpipe/core/prompty/nonce.hpp"

namespace cmfpipe::prompty {

std::string make_placeholder(std::string_view input_name) {
    return rich_input_token(random_hex(placeholder_random_bytes), input_name);
}

}  // namespace cmfpipe::prompty
