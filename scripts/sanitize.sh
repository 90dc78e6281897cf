#!/usr/bin/env bash
# The sanitizer check CI runs: the clang ASan+UBSan build with the fuzz targets
# ($CMFPIPE_FUZZ_BUILD_DIR, default build-fuzz/, shared with scripts/fuzz.sh), then ctest there:
# the test suite under the sanitizers and every fuzz target over its seed corpus and reproducers.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${CMFPIPE_FUZZ_BUILD_DIR:-$root/build-fuzz}"
"$root/scripts/install-deps.sh" --fuzz
CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMFPIPE_FUZZ=ON "$@" >/dev/null
cmake --build "$build" -j "${CMFPIPE_JOBS:-$(nproc)}"
cd "$build"
ctest --output-on-failure -j "${CMFPIPE_JOBS:-$(nproc)}" --timeout 600
