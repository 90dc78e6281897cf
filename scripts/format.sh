#!/usr/bin/env bash
# clang-format (the repo's .clang-format, Debian's clang-format 14) over every tracked C/C++ file.
#   scripts/format.sh           rewrites the files in place
#   scripts/format.sh --check   changes nothing; lists what differs and exits 1 (CI runs this)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
command -v clang-format >/dev/null || "$root/scripts/install-deps.sh" --format
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.cc' '*.c')
if [ "${1:-}" = "--check" ]; then
  clang-format --dry-run --Werror "${files[@]}"
  echo "clang-format: ${#files[@]} files clean" >&2
else
  clang-format -i "${files[@]}"
fi
