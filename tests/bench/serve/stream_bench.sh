#!/usr/bin/env bash
# What one streamed answer costs `cmfpipe serve`, in time to the first text and in CPU per event as
# the answer gets longer. A real server proxies a real upstream on 127.0.0.1 (bench_upstream.py).
#
# 1. Time to first text, side by side in one run: straight from the upstream vs through cmfpipe
#    with the default pipeline (config/default.yaml: pii_redactor, data_policy; the default
#    --stream-holdback 64), the upstream writing one event every PACING ms (first_text.py is the
#    client). Medians of FIRST_REPEATS, for deltas of 200 characters of prose (goal: within 5 ms
#    of direct: text the processors say is final goes out at once, the holdback only bounds what
#    is held) and of one word each (a lone word may still begin an e-mail address: it waits for
#    the next delta, one PACING later). An address split over three deltas is checked in the
#    client's bytes: never sent, whole or in pieces; the rest of the text as the upstream's.
# 2. CPU per delta: the upstream streams N text deltas of 200 characters as fast as it can; the
#    client (curl) reads each answer whole. Two servers: --no-pipeline, and the default pipeline.
#    The figure is the server's CPU time (the time every thread ran, user and kernel, from
#    /proc/PID/task/*/schedstat in nanoseconds, read before and after) per delta, for each N; each
#    measurement spans at least BATCH deltas (several streams of a short N one after the other;
#    utime + stime would count 10 ms ticks, 1-2 ticks a measurement of nginx) and is repeated
#    REPEATS times, the cases interleaved; medians are printed and the ratio
#    CPU-per-delta(largest N) / CPU-per-delta(smallest N) for each server, which stays near 1 when
#    a step costs what its event does, and grows with N when a step costs what the stream so far
#    does (goal: <= 1.5 from 8 KB to 1 MB of answer).
#    With --peer nginx, a third server: nginx (Debian's; installed when missing) passing the same
#    stream as a plain proxy_pass with a keep-alive pool, "proxy_buffering off" (each event on as it
#    comes, as a gateway does); its CPU is its master's and workers' together. The floor for CPU per
#    event: it does not read the events.
# Prints figures; gates nothing (the ctests that do are the stream guard tests' "work does not
# grow with the stream" and "final text").
# usage: tests/bench/serve/stream_bench.sh [--peer nginx]
#   env: PACING=100 FIRST_REPEATS=5 SIZES="40 5243" (N, smallest first: 8 KB and 1 MB) REPEATS=3
#   BATCH=16384 LIMIT=150 (seconds the run may take: past it, the CPU part stops with what it has);
#   SERVE_FLAGS (more options for both cmfpipe servers, e.g. "--busy-poll 0");
#   CMFPIPE_BUILD_DIR (default build/; a copy of an older build's bin/ and lib/ works with
#   LD_LIBRARY_PATH).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
build="${CMFPIPE_BUILD_DIR:-$root/build}"
read -r -a sizes <<<"${SIZES:-40 5243}"
repeats="${REPEATS:-3}"
batch="${BATCH:-16384}"
limit="${LIMIT:-150}"
pacing="${PACING:-100}"
first_repeats="${FIRST_REPEATS:-5}"
nginx_peer=""
if [ "${1:-}" = --peer ] && [ "${2:-}" = nginx ]; then nginx_peer=nginx; shift 2; fi
[ "$#" -eq 0 ] || { sed -n '/^# usage:/,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
for n in "${sizes[@]}" "$repeats" "$batch" "$limit" "$pacing" "$first_repeats"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "stream_bench: '$n' is not a whole number above 0" >&2; exit 2; }
done
[ "${#sizes[@]}" -ge 2 ] || { echo "stream_bench: SIZES needs at least two" >&2; exit 2; }
for tool in curl python3; do
  command -v "$tool" >/dev/null || { echo "stream_bench: needs $tool" >&2; exit 2; }
done
[ -x "$build/bin/cmfpipe" ] || { echo "stream_bench: no $build/bin/cmfpipe (ninja -C build cmfpipe and the plugins)" >&2; exit 2; }

bench=stream_bench
# shellcheck source=tests/bench/serve/processes.sh
source "$root/tests/bench/serve/processes.sh"
started=$SECONDS

start upstream python3 "$root/tests/bench/serve/bench_upstream.py"
upstream_port="$(port_of upstream)"
settings=(none default)
declare -A flags=([none]="--no-pipeline" [default]="--config $root/config/default.yaml")
declare -A label=([none]="--no-pipeline" [default]="default pipeline")
declare -A url pid_of
for s in "${settings[@]}"; do
  # shellcheck disable=SC2086
  start "serve_$s" "$build/bin/cmfpipe" serve --listen 127.0.0.1:0 ${flags[$s]} ${SERVE_FLAGS:-} \
    --upstream "openai=http://127.0.0.1:$upstream_port/v1"
  url[$s]="http://127.0.0.1:$(port_of "serve_$s")/v1/chat/completions"
  pid_of[$s]="$(cat "$work/serve_$s.pid")"
done
if [ -n "$nginx_peer" ]; then
  start_nginx "$upstream_port" "proxy_buffering off;"
  settings+=(nginx)
  label[nginx]="nginx $nginx_version proxy_pass"
  url[nginx]="http://127.0.0.1:$nginx_port/v1/chat/completions"
  pid_of[nginx]="$nginx_pids"
fi

median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{v[NR] = $1} END {if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# 1. Time to first text.
direct_url="http://127.0.0.1:$upstream_port/v1/chat/completions"
echo
echo "stream_bench: $(date -u +%Y-%m-%d), $(nproc) cores shared by the client, the upstream and the servers"
echo
echo "time to the first text, ms from the request (median of $first_repeats; the upstream writes an event every $pacing ms, the role chunk at once):"
echo
echo '| deltas | direct | through cmfpipe (default pipeline, --stream-holdback 64) | difference |'
echo '|---|---|---|---|'
for kind in prose words email; do
  n=3
  [ "$kind" = words ] && n=6
  [ "$kind" = email ] && n=1
  python3 "$root/tests/bench/serve/first_text.py" "$direct_url" "${url[default]}" \
    "paced-$kind-$n-$pacing" "$first_repeats" >"$work/first_$kind" ||
    { echo "stream_bench: first_text.py failed ($kind):" >&2; cat "$work/first_$kind" >&2; exit 1; }
  d="$(median "$(awk '$1 == "direct" {print $2}' "$work/first_$kind" | tr '\n' ' ')")"
  t="$(median "$(awk '$1 == "through" {print $2}' "$work/first_$kind" | tr '\n' ' ')")"
  case "$kind" in
    prose) what="200 characters of prose each" ;;
    words) what="one word each" ;;
    email) what="an address split over three" ;;
  esac
  printf '| %s | %s | %s | %s |\n' "$what" "$d" "$t" "$(awk -v a="$t" -v b="$d" 'BEGIN {printf "%+.1f", a - b}')"
  grep '^check' "$work/first_$kind" >"$work/check_$kind" || true
done
echo
echo "(goal: prose within 5 ms of direct)"
echo "address split over deltas, through cmfpipe: $(cat "$work/check_email")"
echo

# stream SETTING N: one streamed answer of N deltas, read whole; anything but a 200 that ends
# with [DONE] and carries no error event stops the run.
stream() {
  local body status
  body="{\"model\": \"deltas-$2\", \"stream\": true, \"messages\": [{\"role\": \"user\", \"content\": \"go\"}]}"
  status="$(curl -sS -N --max-time 120 -o "$work/answer" -w '%{http_code}' -H 'Content-Type: application/json' \
    --data-binary "$body" "${url[$1]}" 2>&1)" || true
  if [ "$status" != 200 ] || ! tail -c 64 "$work/answer" | grep -qF 'data: [DONE]' ||
    grep -qF '"error"' "$work/answer"; then
    echo "stream_bench: ${label[$1]}, $2 deltas: the answer is not the whole stream ($status):" >&2
    tail -c 600 "$work/answer" >&2
    exit 1
  fi
}

# Each server once, and each N made by the upstream once, before anything is measured.
for n in "${sizes[@]}"; do stream none "$n"; done
stream default "${sizes[0]}"
[ -z "$nginx_peer" ] || stream nginx "${sizes[0]}"

declare -A samples  # "SETTING N" -> CPU microseconds per delta, one a repeat
for ((r = 1; r <= repeats; r++)); do
  for n in "${sizes[@]}"; do
    for s in "${settings[@]}"; do
      if ((SECONDS - started > limit)); then
        echo "stream_bench: past LIMIT=$limit s: stopped at repeat $r, N=$n (the medians below are of what was measured)" >&2
        break 3
      fi
      streams=$(((batch + n - 1) / n))
      # shellcheck disable=SC2086
      before="$(cpu_ns_all ${pid_of[$s]})"
      for ((k = 0; k < streams; k++)); do stream "$s" "$n"; done
      # shellcheck disable=SC2086
      after="$(cpu_ns_all ${pid_of[$s]})"
      samples["$s $n"]+="$(awk -v t="$((after - before))" -v d="$((streams * n))" \
        'BEGIN {printf "%.3f", t / 1e3 / d}') "
    done
  done
done

first="${sizes[0]}"
last="${sizes[-1]}"
echo "CPU µs per delta, deltas of 200 characters, median of ${repeats} (each over >= $batch deltas):"
echo
printf '| deltas in the stream (answer) |'
for s in "${settings[@]}"; do printf ' %s |' "${label[$s]}"; done
echo
printf '|---|'
for _ in "${settings[@]}"; do printf -- '---|'; done
echo
for n in "${sizes[@]}"; do
  printf '| %s (%s KB) |' "$n" "$((n * 200 / 1024))"
  for s in "${settings[@]}"; do printf ' %s (%s) |' "$(median "${samples["$s $n"]:-}")" "$(echo ${samples["$s $n"]:-})"; done
  echo
done
printf '| **ratio %s / %s** |' "$last" "$first"
for s in "${settings[@]}"; do
  printf ' **%s** |' "$(awk -v a="$(median "${samples["$s $last"]:-}")" -v b="$(median "${samples["$s $first"]:-}")" \
    'BEGIN {if (a == "nan" || b == "nan" || b == 0) print "n/a"; else printf "%.2f", a / b}')"
done
echo
if [ -n "$nginx_peer" ]; then
  printf '| **CPU a delta, cmfpipe / nginx, at %s** |' "$last"
  for s in "${settings[@]}"; do
    printf ' %s |' "$(awk -v a="$(median "${samples["$s $last"]:-}")" -v b="$(median "${samples["nginx $last"]:-}")" \
      'BEGIN {if (a == "nan" || b == "nan" || b == 0) print "n/a"; else printf "%.1fx", a / b}')"
  done
  echo
fi
echo
goal="ratio <= 1.5 for both"
[ -n "$nginx_peer" ] && goal="$goal; CPU a delta within 3x of nginx's (issue 29)"
echo "(goal: $goal; run in $((SECONDS - started)) s)"
