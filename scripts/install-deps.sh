#!/usr/bin/env bash
# Installs the Debian packages cmfpipe builds with, only those that are missing.
# Safe to run again; needs root (or sudo) only when something is missing.
# --fuzz adds what the sanitizer and fuzz build needs (clang 14 and libFuzzer; scripts/fuzz.sh).
set -euo pipefail

packages=(g++ cmake ninja-build ccache python3 clang-format libboost-dev libssl-dev libyaml-cpp-dev nlohmann-json3-dev catch2 libmstch-dev)
if [ "${1:-}" = "--fuzz" ]; then
  packages+=(clang libfuzzer-14-dev)
fi

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
