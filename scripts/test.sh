#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs every test through ctest.
# Conformance tests read ../shared/corpus (or $CMFPIPE_CORPUS); without it they report "Skipped".
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${CMFPIPE_BUILD_DIR:-$root/build}"
"$root/scripts/build.sh" "$@"
cd "$build"
ctest --output-on-failure -j "${CMFPIPE_JOBS:-$(nproc)}" --timeout 600
