#!/usr/bin/env bash
# `cmfpipe serve` under load with wrk (Debian package), client and server sharing the machine,
# everything on 127.0.0.1. Prints figures; gates nothing.
#   (a) requests/s, p50, p99 of POST /v1/prompts/chat?to=openai (the bundled chat example, the
#       default pipeline), 16 connections;
#   (b) proxy overhead: one connection against the mock upstream directly and through
#       /v1/chat/completions; the difference of the p50s and p99s is cmfpipe's;
#   (c) resident memory after REQUESTS_SMALL and after REQUESTS_LARGE prompt requests.
# usage: tests/bench/serve/serve_bench.sh [SECONDS]   (env: REQUESTS_SMALL=10000
#        REQUESTS_LARGE=1000000; the build is build/ unless CMFPIPE_BUILD_DIR says otherwise)
# Not yet: (d) the same load through Portkey's gateway (--peer portkey, needs node and npm), and a
# mock upstream faster than Python's http.server, which limits (b)'s requests/s.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
build="${CMFPIPE_BUILD_DIR:-$root/build}"
seconds="${1:-10}"
small="${REQUESTS_SMALL:-10000}"
large="${REQUESTS_LARGE:-1000000}"
command -v wrk >/dev/null || { echo "serve_bench: needs wrk (apt-get install wrk)" >&2; exit 2; }
work="$(mktemp -d)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

# start NAME COMMAND...: a server in the background (its pid in $work/NAME.pid, its output in
# $work/NAME.log); port_of NAME waits for the line that names its port and prints the port.
start() {
  local name="$1"
  shift
  "$@" >"$work/$name.log" 2>&1 &
  pids+=($!)
  echo $! >"$work/$name.pid"
}
port_of() {
  local port
  for _ in $(seq 300); do
    if port="$(grep -oE 'listening on (http://127\.0\.0\.1:)?[0-9]+' "$work/$1.log" | grep -oE '[0-9]+$')"; then
      echo "$port"
      return
    fi
    sleep 0.05
  done
  echo "serve_bench: $1 did not start: $(cat "$work/$1.log")" >&2
  exit 1
}

post_script() {  # wrk Lua: POST $1 as JSON
  printf 'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = [[%s]]\n' "$1" >"$work/post.lua"
  echo "$work/post.lua"
}

# wrk's report -> "requests/s p50 p99" (latencies in ms).
measure() {
  local out
  out="$(wrk --latency "$@")"
  local rps p50 p99
  rps="$(awk '/Requests\/sec/ {print $2}' <<<"$out")"
  p50="$(awk '$1 == "50%" {print $2}' <<<"$out")"
  p99="$(awk '$1 == "99%" {print $2}' <<<"$out")"
  echo "$rps $(to_ms "$p50") $(to_ms "$p99")"
}
to_ms() {  # 812.00us | 1.20ms | 2.00s -> ms
  awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /s$/ && v !~ /ms$/) n *= 1000; printf "%.3f", n }'
}

mkdir -p "$work/prompts"
cp "$root/examples/prompty/chat.prompty" "$work/prompts/"
start serve "$build/bin/cmfpipe" serve --listen 127.0.0.1:0 --prompts "$work/prompts"
serve_port="$(port_of serve)"
prompt_script="$(post_script '{"question": "What is a nonce, in one sentence?"}')"
url="http://127.0.0.1:$serve_port/v1/prompts/chat?to=openai"

read -r rps p50 p99 <<<"$(measure -t2 -c16 -d"${seconds}s" -s "$prompt_script" "$url")"
printf '(a) POST /v1/prompts/chat?to=openai, 16 connections: %s requests/s, p50 %s ms, p99 %s ms\n' "$rps" "$p50" "$p99"

start upstream python3 "$root/tests/serve/mock_upstream.py" "$work/received.jsonl"
upstream_port="$(port_of upstream)"
start proxy "$build/bin/cmfpipe" serve --listen 127.0.0.1:0 --upstream "openai=http://127.0.0.1:$upstream_port/v1"
proxy_port="$(port_of proxy)"
chat_script="$(post_script '{"model": "m", "messages": [{"role": "user", "content": "hi"}]}')"
read -r d_rps d50 d99 <<<"$(measure -t1 -c1 -d"${seconds}s" -s "$chat_script" "http://127.0.0.1:$upstream_port/v1/chat/completions")"
: >"$work/received.jsonl"
read -r p_rps q50 q99 <<<"$(measure -t1 -c1 -d"${seconds}s" -s "$chat_script" "http://127.0.0.1:$proxy_port/v1/chat/completions")"
printf '(b) one connection: upstream directly p50 %s ms p99 %s ms (%s requests/s); through cmfpipe p50 %s ms p99 %s ms (%s requests/s); overhead p50 %s ms, p99 %s ms\n' \
  "$d50" "$d99" "$d_rps" "$q50" "$q99" "$p_rps" \
  "$(awk -v a="$q50" -v b="$d50" 'BEGIN {printf "%.3f", a - b}')" \
  "$(awk -v a="$q99" -v b="$d99" 'BEGIN {printf "%.3f", a - b}')"

# (c): a fresh server, RSS after `small` and after `large` requests (wrk -d bounds each run; the
# count is read from the server's own /metrics).
start serve_c "$build/bin/cmfpipe" serve --listen 127.0.0.1:0 --prompts "$work/prompts"
c_port="$(port_of serve_c)"
c_pid="$(cat "$work/serve_c.pid")"
c_url="http://127.0.0.1:$c_port/v1/prompts/chat?to=openai"
served() {
  curl -s "http://127.0.0.1:$c_port/metrics" |
    awk 'index($0, "cmfpipe_http_requests_total{route=\"/v1/prompts/{name}\",status=\"200\"}") == 1 {n = $NF}
         END {print n + 0}'
}
rss() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
run_until() {
  while [ "$(served)" -lt "$1" ]; do
    wrk -t2 -c16 -d5s -s "$prompt_script" "$c_url" >/dev/null
  done
}
run_until "$small"
after_small="$(rss "$c_pid")"; n_small="$(served)"
run_until "$large"
after_large="$(rss "$c_pid")"; n_large="$(served)"
printf '(c) resident memory after %s requests %s kB, after %s requests %s kB: growth %s%%\n' \
  "$n_small" "$after_small" "$n_large" "$after_large" \
  "$(awk -v a="$after_large" -v b="$after_small" 'BEGIN {printf "%.1f", (a - b) * 100 / b}')"
echo "(d) not run: the Portkey comparison is not written yet"
