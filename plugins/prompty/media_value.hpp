#pragma once
// An image/file/audio input's value -> the CMF part that replaces its nonce:
// image -> ImageSource, file -> DocumentSource, audio -> AudioSource.
//
// The value is a string or an object:
//   "https://host/cat.png"                a URL (anything with "scheme://")    -> type url
//   "data:image/png;base64,iVBOR..."      a base64 data URL                    -> type base64,
//                                         the media type taken from the URL
//   "iVBORw0KGgo..."                      anything else: raw base64            -> type base64
//   {"value"|"source"|"url"|"data": <string as above>, "mediaType"|"media_type": "...",
//    "title": "..." (file only)}
//   {"content_type": "image", "content": {...}}   a CMF part, read as CMF JSON
// Anything else is a ValueError naming the input.
#include <string_view>

#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe::prompty_parser {

cmf::PartPtr media_part(std::string_view kind, const Json& value, std::string_view input_name);

}  // namespace cmfpipe::prompty_parser
