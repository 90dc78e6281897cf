#!/usr/bin/env bash
# The main job on a bundled example: installs what is missing, builds, then turns
# examples/prompty/chat.prompty into an OpenAI Chat Completions request
# (load -> validate -> render (jinja2) -> parse (prompty) -> processors (config/default.yaml) -> openai).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${CMFPIPE_BUILD_DIR:-$root/build}"
# Only the CLI and the bundled plugins; scripts/test.sh builds the rest in the same build dir.
CMFPIPE_TARGETS=cmfpipe_bundle "$root/scripts/build.sh" >/dev/null
cd "$root"
exec "$build/bin/cmfpipe" run examples/prompty/chat.prompty --inputs examples/prompty/chat.json --to openai
