#!/usr/bin/env bash
# Fuzzes every libFuzzer target (tests/fuzz) for SECONDS_PER_TARGET (default 60), one after the
# other, in the clang ASan+UBSan build $CMFPIPE_FUZZ_BUILD_DIR (default build-fuzz/).
#   usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]      (targets: jinja2 mustache ...)
# Per target it prints execs/s, coverage and the crashes, timeouts (> 2 s an input) and
# out-of-memory (> 512 MB) found, and exits non-zero if any target found one. The corpus grows in
# build-fuzz/fuzz-run/<target>/corpus across runs; reproducers land in .../findings: each one
# found belongs in tests/fuzz/regressions/<target>/ (ctest replays them).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${CMFPIPE_FUZZ_BUILD_DIR:-$root/build-fuzz}"
seconds="${1:-60}"
shift || true

"$root/scripts/install-deps.sh" --fuzz
CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMFPIPE_FUZZ=ON >/dev/null
cmake --build "$build" -j "${CMFPIPE_JOBS:-$(nproc)}" --target fuzz_targets

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for list in "$build"/fuzz-seeds/*.dirs; do targets+=("$(basename "$list" .dirs)"); done
fi

failed=0
printf '%-22s %10s %8s %8s %8s %9s %6s\n' target execs/s cov ft crashes timeouts ooms
for target in "${targets[@]}"; do
  work="$build/fuzz-run/$target"
  rm -rf "$work/findings"
  mkdir -p "$work/corpus" "$work/findings"
  mapfile -t seeds < "$build/fuzz-seeds/$target.dirs"
  # UBSan findings abort (-fno-sanitize-recover); ASan's own allocator limit matches -rss_limit_mb.
  status=0
  "$build/bin/fuzz_$target" -max_total_time="$seconds" -timeout=2 -rss_limit_mb=512 \
    -dict="$(cat "$build/fuzz-seeds/$target.dict-path")" -artifact_prefix="$work/findings/" \
    -print_final_stats=1 "$work/corpus" "${seeds[@]}" >"$work/log" 2>&1 || status=$?
  last="$(grep -E '^#[0-9]+' "$work/log" | tail -1 || true)"
  cov="$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")"
  ft="$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")"
  execs="$(sed -nE 's/^stat::average_exec_per_sec: *([0-9]+).*/\1/p' "$work/log" | tail -1)"
  crashes="$(find "$work/findings" -name 'crash-*' -o -name 'leak-*' -o -name 'deadly*' | wc -l)"
  timeouts="$(find "$work/findings" -name 'timeout-*' | wc -l)"
  ooms="$(find "$work/findings" -name 'oom-*' | wc -l)"
  if [ "$status" -ne 0 ] && [ $((crashes + timeouts + ooms)) -eq 0 ]; then
    crashes=1  # it stopped without a reproducer (e.g. at start-up): see the log
  fi
  printf '%-22s %10s %8s %8s %8s %9s %6s\n' "$target" "${execs:-?}" "${cov:-?}" "${ft:-?}" \
    "$crashes" "$timeouts" "$ooms"
  if [ $((crashes + timeouts + ooms)) -ne 0 ]; then
    failed=1
    echo "  $work/log; reproducers: $(ls "$work/findings" | tr '\n' ' ')" >&2
  fi
done
exit "$failed"
