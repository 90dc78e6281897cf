#pragma once
// Everything of the CMF model: Message, parts, extensions, JSON, capabilities, filtering, views.
// See docs/cmf.md for a guide.
#include "cmfpipe/cmf/capabilities.hpp"
#include "cmfpipe/cmf/content.hpp"
#include "cmfpipe/cmf/enums.hpp"
#include "cmfpipe/cmf/extensions.hpp"
#include "cmfpipe/cmf/filter.hpp"
#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/cmf/uri_pattern.hpp"
#include "cmfpipe/cmf/view.hpp"
