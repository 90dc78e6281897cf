#!/usr/bin/env bash
# Fuzzes every libFuzzer target (tests/fuzz) for SECONDS_PER_TARGET (default 60), one after the
# other or CMFPIPE_FUZZ_PARALLEL=N at a time, in a clang ASan+UBSan build at -O1
# $CMFPIPE_FUZZ_BUILD_DIR (default build-fuzz-o1/; scripts/sanitize.sh's build-fuzz/ is -O0, built
# for compile time, and runs 3-5x fewer execs a second).
#   usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]      (targets: jinja2 mustache ...)
# Per target it prints execs/s, coverage and the crashes, timeouts (> 2 s an input) and
# out-of-memory (> 512 MB) found, and exits non-zero if any target found one. The corpus grows in
# $build/fuzz-run/<target>/corpus across runs; reproducers land in .../findings: each one
# found belongs in tests/fuzz/regressions/<target>/ (ctest replays them).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# ccache with paths relative to the checkout: a clone in another folder (CI's) reuses what this one
# compiled (debug info then names the sources relative to the checkout).
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
build="${CMFPIPE_FUZZ_BUILD_DIR:-$root/build-fuzz-o1}"
seconds="${1:-60}"
shift || true

"$root/scripts/install-deps.sh" --fuzz
CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMFPIPE_FUZZ=ON -DCMFPIPE_FUZZ_OPT=-O1 >/dev/null
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  cmake --build "$build" -j "${CMFPIPE_JOBS:-$(nproc)}" --target fuzz_targets
  for list in "$build"/fuzz-seeds/*.dirs; do targets+=("$(basename "$list" .dirs)"); done
else
  # Only the targets named (and the plugins they load), not all of them.
  cmake --build "$build" -j "${CMFPIPE_JOBS:-$(nproc)}" --target fuzz_seeds \
    $(printf -- '--target fuzz_%s ' "${targets[@]}")
fi

# libFuzzer's -rss_limit_mb measures the whole process, and ASan keeps freed memory in a
# quarantine (256 MB by default) and in its allocator's caches: over ten minutes that alone
# approaches 512 MB while no input needs more than a few tens of MB (the g++ build: 10-25 MB). A
# 32 MB quarantine still catches a use after a recent free; the limit then measures the inputs.
export ASAN_OPTIONS="${ASAN_OPTIONS:-quarantine_size_mb=32:allocator_release_to_os_interval_ms=1000}"

# One target: fuzz it, then write its table row to $work/row (rows print in order at the end).
fuzz_one() {
  local target="$1" work="$build/fuzz-run/$1" status=0
  rm -rf "$work/findings" "$work/row"
  mkdir -p "$work/corpus" "$work/findings"
  mapfile -t seeds <"$build/fuzz-seeds/$target.dirs"
  # UBSan findings abort (-fno-sanitize-recover); ASan's own allocator limit matches -rss_limit_mb.
  "$build/bin/fuzz_$target" -max_total_time="$seconds" -timeout=2 -rss_limit_mb=512 \
    -dict="$(cat "$build/fuzz-seeds/$target.dict-path")" -artifact_prefix="$work/findings/" \
    -print_final_stats=1 "$work/corpus" "${seeds[@]}" >"$work/log" 2>&1 || status=$?
  local last cov ft execs crashes timeouts ooms
  last="$(grep -E '^#[0-9]+' "$work/log" | tail -1 || true)"
  cov="$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")"
  ft="$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")"
  execs="$(sed -nE 's/^stat::average_exec_per_sec: *([0-9]+).*/\1/p' "$work/log" | tail -1)"
  crashes="$(find "$work/findings" -name 'crash-*' -o -name 'leak-*' -o -name 'deadly*' | wc -l)"
  timeouts="$(find "$work/findings" -name 'timeout-*' | wc -l)"
  ooms="$(find "$work/findings" -name 'oom-*' | wc -l)"
  if [ "$status" -ne 0 ] && [ $((crashes + timeouts + ooms)) -eq 0 ]; then
    crashes=1 # it stopped without a reproducer (e.g. at start-up): see the log
  fi
  printf '%-22s %10s %8s %8s %8s %9s %6s\n' "$target" "${execs:-?}" "${cov:-?}" "${ft:-?}" \
    "$crashes" "$timeouts" "$ooms" >"$work/row"
}

# CMFPIPE_FUZZ_PARALLEL targets at a time (default 1: each target gets a core of its own on a
# 2-core machine only when nothing else runs).
parallel="${CMFPIPE_FUZZ_PARALLEL:-1}"
for target in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
  fuzz_one "$target" &
done
wait

failed=0
printf '%-22s %10s %8s %8s %8s %9s %6s\n' target execs/s cov ft crashes timeouts ooms
for target in "${targets[@]}"; do
  work="$build/fuzz-run/$target"
  row="$(cat "$work/row" 2>/dev/null || printf '%-22s (no result: see %s/log)' "$target" "$work")"
  echo "$row"
  read -r _ _ _ _ crashes timeouts ooms <<<"$row" || true
  if ! [ "${crashes:-x}" -eq 0 ] 2>/dev/null || [ "$timeouts" -ne 0 ] || [ "$ooms" -ne 0 ]; then
    failed=1
    echo "  $work/log; reproducers: $(ls "$work/findings" | tr '\n' ' ')" >&2
  fi
done
exit "$failed"
