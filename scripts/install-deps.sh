#!/usr/bin/env bash
# Installs the Debian packages cmfpipe builds with, only those that are missing.
# Safe to run again; needs root (or sudo) only when something is missing.
# Without arguments: what scripts/example.sh and scripts/test.sh build with (python3 for the
# tests' analysis-table check, python3-jinja2 for the tests that render through the Python Jinja2
# oracle, openssl for the certificate of the serve TLS test), nothing more, no recommended
# packages.
# --format adds clang-format 14 (scripts/format.sh; it pulls LLVM in: 7 packages, 39 MB more than
# the 106 MB of .deb files the rest downloads on a fresh bookworm).
# --fuzz adds what the sanitizer and fuzz build needs (clang 14 and libFuzzer; scripts/fuzz.sh)
# and clang-format (CI runs the format check after it).
# --deploy adds the tools the deployment tests use (tests/deploy, `ctest -L deploy`), each only
# where its command is missing: haproxy, kubectl (kubernetes-client) and podman.
set -euo pipefail

packages=(g++ cmake ninja-build ccache python3 python3-jinja2 openssl libboost-dev libssl-dev libyaml-cpp-dev nlohmann-json3-dev catch2 libmstch-dev)
case "${1:-}" in
  --format) packages+=(clang-format) ;;
  --fuzz) packages+=(clang libfuzzer-14-dev clang-format) ;;
  --deploy)
    command -v haproxy >/dev/null || packages+=(haproxy)
    command -v kubectl >/dev/null || packages+=(kubernetes-client)
    command -v podman >/dev/null || packages+=(podman)
    ;;
esac

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "cmfpipe: installing missing packages: ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
