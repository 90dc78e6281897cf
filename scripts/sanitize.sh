#!/usr/bin/env bash
# The sanitizer check CI runs, in the clang ASan+UBSan build that also holds the fuzz targets
# ($CMFPIPE_FUZZ_BUILD_DIR, default build-fuzz/, shared with scripts/fuzz.sh):
#   scripts/sanitize.sh         the parser and adapter test executables, and every fuzz target
#                               over its seed corpora and reproducers (what fits CI's time)
#   scripts/sanitize.sh --all   everything built, the whole suite run
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# ccache with paths relative to the checkout: a clone in another folder (CI's) reuses what this one
# compiled (debug info then names the sources relative to the checkout).
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
build="${CMFPIPE_FUZZ_BUILD_DIR:-$root/build-fuzz}"
jobs="${CMFPIPE_JOBS:-$(nproc)}"
parser_tests=(jinja2_tests mustache_tests prompty_parser_tests prompty_tests cmf_tests
  openai_adapter_tests anthropic_adapter_tests chatml_tests harmony_tests limits_tests
  prapti_tests wire_tests chat_template_tests)
# Tests that assert a wall-time bound on a hostile template or a long line (prapti), and the
# 50 MB harmony completion:
# unoptimised ASan runs them 5-10x slower, so their time is the g++ build's to judge (they run
# there); here it would measure ASan. (The hostile-input tests skip their time and memory checks
# under ASan by themselves: tests/support/hostile.hpp.)
timed='^(jinja2 sandbox: (output size is bounded|an endless loop nest runs out of iterations|deeply nested input is refused)|harmony 50 MB of small messages.*|long input: .*)$'
# Tests that run the cmfpipe executable: under load LeakSanitizer's exit-time scan of a process
# with pool threads has crashed by itself ("Tracer caught signal 11"); the g++ build runs them.
cli='^(chat_template cli: .*|analyze-template .*)$'

"$root/scripts/install-deps.sh" --fuzz
CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMFPIPE_FUZZ=ON >/dev/null
if [ "${1:-}" = "--all" ]; then
  cmake --build "$build" -j "$jobs"
  labels=()
else
  cmake --build "$build" -j "$jobs" --target fuzz_targets "${parser_tests[@]}"
  labels=(-L "^($(IFS='|'; echo "fuzz|${parser_tests[*]}"))\$")
fi
cd "$build"
ctest --output-on-failure -j "$jobs" --timeout 600 -E "$timed|$cli" "${labels[@]}"
