#!/usr/bin/env bash
# The suite's temporary files. ctest runs each test executable with TMPDIR=ROOT/<executable>
# (tests/CMakeLists.txt), so everything a test, its Scratch directories or a program it starts
# put in the temporary directory lands there.
#   test_tmpdir.sh prepare ROOT NAME...  before the first test: ROOT emptied, ROOT/NAME made
#   test_tmpdir.sh check ROOT            after the last test: fails, naming each entry, when
#                                        anything is left (kept for a look; prepare clears it)
set -euo pipefail
mode="$1" root="$2"
shift 2
case "$mode" in
  prepare)
    rm -rf "$root"
    for name in "$@"; do mkdir -p "$root/$name"; done
    ;;
  check)
    # The executables' folders are expected; what is in them, or beside them, was left behind.
    left="$( (find "$root" -mindepth 2 -maxdepth 2; find "$root" -mindepth 1 -maxdepth 1 ! -type d) |
      sed "s|^$root/||" | sort)"
    if [ -n "$left" ]; then
      echo "left behind in $root (TMPDIR of each test executable):"
      echo "$left"
      exit 1
    fi
    echo "nothing left behind in $root"
    ;;
  *)
    echo "usage: $0 prepare ROOT NAME... | check ROOT" >&2
    exit 2
    ;;
esac
