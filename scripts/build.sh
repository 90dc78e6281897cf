#!/usr/bin/env bash
# Installs what is missing, configures and builds cmfpipe into $CMFPIPE_BUILD_DIR (default: build/).
# Extra arguments go to the CMake configure step (e.g. -DCMFPIPE_SANITIZE=ON). $CMFPIPE_TARGETS
# (space-separated) builds only those targets (scripts/example.sh: cmfpipe_bundle); default all.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# ccache with paths relative to the checkout: a clone in another folder (CI's) reuses what this one
# compiled (debug info then names the sources relative to the checkout).
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
build="${CMFPIPE_BUILD_DIR:-$root/build}"
"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="${CMFPIPE_BUILD_TYPE:-RelWithDebInfo}" "$@" >/dev/null
targets=()
for target in ${CMFPIPE_TARGETS:-}; do targets+=(--target "$target"); done
cmake --build "$build" -j "${CMFPIPE_JOBS:-$(nproc)}" "${targets[@]}"
