#!/usr/bin/env bash
# The main job on a bundled example: installs what is missing, builds, lists the plugins and
# turns examples/chat.prompty into an OpenAI request.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${CMFPIPE_BUILD_DIR:-$root/build}"
"$root/scripts/build.sh" >/dev/null
cd "$root"
"$build/bin/cmfpipe" plugins
echo
"$build/bin/cmfpipe" render --format jinja2 --template examples/hello.jinja --vars examples/hello.json
