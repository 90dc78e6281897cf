#pragma once
// Everything of the CMF model: Message, parts, extensions, JSON, capabilities, views.
// See docs/cmf.md for a guide.
#include "cmfpipe/cmf/capabilities.hpp"
#include "cmfpipe/cmf/content.hpp"
#include "cmfpipe/cmf/enums.hpp"
#include "cmfpipe/cmf/extensions.hpp"
#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/cmf/message.hpp"
