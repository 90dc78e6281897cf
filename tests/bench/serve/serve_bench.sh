#!/usr/bin/env bash
# `cmfpipe serve` under load with wrk (Debian package), client and servers sharing the machine,
# everything on 127.0.0.1. Prints figures and a summary for docs/performance.md; gates nothing.
#   (a) requests/s, p50, p99 of POST /v1/prompts/chat?to=openai (the bundled chat example, the
#       default pipeline), 16 connections;
#   (b) proxy overhead: one connection against the bench upstream (bench_upstream.py, asyncio)
#       directly and through /v1/chat/completions, the difference of the p50s and p99s being
#       cmfpipe's; and requests/s of both at 16 connections, where on few cores the Python
#       upstream's own CPU limits the rate;
#   (c) resident memory (VmRSS) of a fresh server after REQUESTS_SMALL and after REQUESTS_LARGE
#       answered prompt requests, and the growth between them;
#   (d) with --peer portkey: the load of (b) through Portkey's gateway (@portkey-ai/gateway from
#       npm, needs node >= 18 and npm), measured between cmfpipe's runs: its overhead at one
#       connection, its requests/s at 16 and cmfpipe's ratio to it;
#   (e) with --peer nginx: the load of (b) through nginx (Debian's package, installed with apt-get
#       when missing) as a plain `proxy_pass` with a keep-alive pool to the same upstream, the
#       floor a proxy that does not read the body sets: its overhead at one connection, its
#       requests/s at 16 and the CPU it spends a request (master and workers), beside cmfpipe's;
#       and cmfpipe (default pipeline) with --busy-poll BUSY_POLL (default 0: its I/O thread
#       sleeps as soon as it has no work, where by default it polls through gaps that have been
#       short, taking what comes in them without a wake-up), its overhead at one connection and
#       its CPU at 16;
#   (f) with --peer nginx: light load, one connection asking every PACE_MS (default 1) ms, gaps
#       too long to poll through: the CPU a request of cmfpipe by default and with --busy-poll
#       BUSY_POLL, what the default's polling costs when it does not pay.
# Beside each rate, the CPU time each server spent a request (/proc/PID/stat), which does not
# depend on how the cores were shared. The paths of (b) and (d) get 2 s of load before they are
# measured (node compiles as it runs). Every path is checked with one curl request first; a wrk
# run with an answer that is not 2xx or a socket error stops the script with wrk's report
# instead of printing figures.
# usage: tests/bench/serve/serve_bench.sh [--peer portkey] [--peer nginx] [SECONDS]
#   SECONDS per wrk run (default 10; at one connection split into ROUNDS=5 rounds of every path
#   in turn, medians printed). env: REQUESTS_SMALL=10000 REQUESTS_LARGE=1000000 BUSY_POLL=0;
#   CMFPIPE_BUILD_DIR (default build/); PORTKEY_DIR, a folder to install the gateway into and
#   reuse (default: a scratch folder, removed at the end). PACE_MS=1 for (f).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
build="${CMFPIPE_BUILD_DIR:-$root/build}"
portkey_version=1.15.2

usage() { sed -n '/^# usage:/,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2; exit "${1:-2}"; }
peer=""
nginx_peer=""
while [ $# -gt 0 ]; do
  case "$1" in
    --peer) [ $# -ge 2 ] || usage; set -- "--peer=$2" "${@:3}" ;;
    --peer=nginx) nginx_peer=nginx; shift ;;
    --peer=*) peer="${1#--peer=}"; shift ;;
    -h | --help) usage 0 ;;
    -*) echo "serve_bench: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
[ $# -le 1 ] || usage
seconds="${1:-10}"
small="${REQUESTS_SMALL:-10000}"
large="${REQUESTS_LARGE:-1000000}"
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || { echo "serve_bench: SECONDS must be a whole number, not '$seconds'" >&2; exit 2; }
if [ "$small" -lt 16 ] || [ "$large" -le "$small" ]; then
  echo "serve_bench: needs 16 <= REQUESTS_SMALL < REQUESTS_LARGE" >&2
  exit 2
fi
case "$peer" in "" | portkey) ;; *) echo "serve_bench: unknown peer '$peer' (known: portkey, nginx)" >&2; exit 2 ;; esac
for tool in wrk curl python3 ${peer:+node npm}; do
  command -v "$tool" >/dev/null || { echo "serve_bench: needs $tool" >&2; exit 2; }
done
[ -x "$build/bin/cmfpipe" ] || { echo "serve_bench: no $build/bin/cmfpipe (ninja -C build cmfpipe and the plugins)" >&2; exit 2; }

bench=serve_bench
# shellcheck source=tests/bench/serve/processes.sh
source "$root/tests/bench/serve/processes.sh"

# post_script NAME BODY [HEADER: VALUE]...: a wrk Lua script that POSTs BODY as JSON; prints its path.
post_script() {
  local file="$work/$1.lua" body="$2" header
  shift 2
  {
    echo 'wrk.method = "POST"'
    echo 'wrk.headers["Content-Type"] = "application/json"'
    for header in "$@"; do printf 'wrk.headers["%s"] = "%s"\n' "${header%%: *}" "${header#*: }"; done
    printf 'wrk.body = [[%s]]\n' "$body"
  } >"$file"
  echo "$file"
}

# check WHAT URL BODY EXPECTED [HEADER: VALUE]...: one POST with curl; anything but a 200 whose
# body holds EXPECTED stops the run with what came back.
check() {
  local what="$1" url="$2" body="$3" expected="$4" header status
  shift 4
  local headers=(-H "Content-Type: application/json")
  for header in "$@"; do headers+=(-H "$header"); done
  status="$(curl -sS -o "$work/check.out" -w '%{http_code}' "${headers[@]}" --data-binary "$body" "$url" 2>&1)" || true
  if [ "$status" != 200 ] || ! grep -qF "$expected" "$work/check.out"; then
    echo "serve_bench: $what does not answer as it should, nothing measured." >&2
    echo "  POST $url -> $status: $(head -c 600 "$work/check.out")" >&2
    exit 1
  fi
}

# measure KEY WHAT WATCHED WRK-ARGS...: one wrk run; rps[KEY] p50[KEY] p99[KEY] (latencies in ms),
# and cpu[KEY:PID], the CPU time (user + system, every thread) each process of WATCHED (pids,
# space-separated) spent per answered request, in microseconds: unlike requests/s it does not
# depend on how the shared cores were divided between wrk and the servers.
declare -A rps p50 p99 cpu
measure() {
  local key="$1" what="$2" watched="$3" out pid
  shift 3
  declare -A before
  for pid in $watched; do before[$pid]="$(cpu_ticks "$pid")"; done
  out="$(wrk --latency "$@" 2>&1)" || { echo "serve_bench: $what: wrk failed: $out" >&2; exit 1; }
  for pid in $watched; do cpu[$key:$pid]="$(($(cpu_ticks "$pid") - before[$pid]))"; done
  if grep -qE 'Non-2xx|Socket errors' <<<"$out"; then
    echo "serve_bench: $what: not every request was answered with 2xx, the figures would mean nothing:" >&2
    echo "$out" >&2
    exit 1
  fi
  rps[$key]="$(awk '/Requests\/sec/ {printf "%.0f", $2}' <<<"$out")"
  p50[$key]="$(to_ms "$(awk '$1 == "50%" {print $2}' <<<"$out")")"
  p99[$key]="$(to_ms "$(awk '$1 == "99%" {print $2}' <<<"$out")")"
  local answered
  answered="$(awk '/ requests in / {print $1}' <<<"$out")"
  for pid in $watched; do
    cpu[$key:$pid]="$(awk -v t="${cpu[$key:$pid]}" -v hz="$hz" -v n="$answered" 'BEGIN {printf "%.0f", t / hz * 1e6 / n}')"
  done
}
to_ms() {  # 812.00us | 1.20ms | 2.00s -> ms
  awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /s$/ && v !~ /ms$/) n *= 1000; printf "%.3f", n }'
}
minus() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a - b}'; }
thousands() { awk -v n="$1" 'BEGIN { s = sprintf("%d", n); while (s ~ /[0-9][0-9][0-9][0-9]/) sub(/[0-9][0-9][0-9]($|,)/, ",&", s); print s }'; }

# --- the servers, each path checked once -------------------------------------------------------
mkdir -p "$work/prompts"
cp "$root/examples/prompty/chat.prompty" "$work/prompts/"
start serve "$build/bin/cmfpipe" serve --listen 127.0.0.1:0 --prompts "$work/prompts"
serve_port="$(port_of serve)"
prompt_body='{"question": "What is a nonce, in one sentence?"}'
prompt_script="$(post_script prompt "$prompt_body")"
prompt_url="http://127.0.0.1:$serve_port/v1/prompts/chat?to=openai"
check "cmfpipe's prompt route" "$prompt_url" "$prompt_body" "What is a nonce"

start upstream python3 "$root/tests/bench/serve/bench_upstream.py"
upstream_port="$(port_of upstream)"
start proxy "$build/bin/cmfpipe" serve --listen 127.0.0.1:0 --upstream "openai=http://127.0.0.1:$upstream_port/v1"
proxy_port="$(port_of proxy)"
chat_body='{"model": "m", "messages": [{"role": "user", "content": "hi"}]}'
chat_script="$(post_script chat "$chat_body")"
direct_url="http://127.0.0.1:$upstream_port/v1/chat/completions"
proxy_url="http://127.0.0.1:$proxy_port/v1/chat/completions"
check "the bench upstream" "$direct_url" "$chat_body" "echo: hi"
check "cmfpipe's proxy" "$proxy_url" "$chat_body" "echo: hi"

if [ "$peer" = portkey ]; then
  # Installed from npm with its dependencies, install scripts off (its one, patch-package, has no
  # patches in the published package).
  portkey_dir="${PORTKEY_DIR:-$work/portkey}"
  portkey_package="$portkey_dir/node_modules/@portkey-ai/gateway"
  if ! grep -qF "\"version\": \"$portkey_version\"" "$portkey_package/package.json" 2>/dev/null; then
    mkdir -p "$portkey_dir"
    npm install --prefix "$portkey_dir" --no-audit --no-fund --ignore-scripts --loglevel=error \
      "@portkey-ai/gateway@$portkey_version" >"$work/npm.log" 2>&1 ||
      { echo "serve_bench: npm install @portkey-ai/gateway@$portkey_version failed: $(tail -20 "$work/npm.log")" >&2; exit 1; }
  fi
  # Its CLI (build/start-server.js) takes --port=N and --headless only, and hono's serve() gets no
  # host, so it would listen on every interface: this preload pins a listen without one to 127.0.0.1.
  cat >"$work/loopback.cjs" <<'EOF'
const net = require("net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (port, host, ...rest) {
  if (typeof port === "number" && typeof host !== "string") return listen.call(this, port, "127.0.0.1", host, ...rest);
  return listen.call(this, port, host, ...rest);
};
EOF
  portkey_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  portkey_command=(node --require "$work/loopback.cjs" "$portkey_package/build/start-server.js" --port="$portkey_port" --headless)
  start portkey "${portkey_command[@]}"
  for _ in $(seq 300); do
    [ "$(curl -s "http://127.0.0.1:$portkey_port/" 2>/dev/null)" = "AI Gateway says hey!" ] && break
    kill -0 "$(cat "$work/portkey.pid")" 2>/dev/null || break
    sleep 0.1
  done
  [ "$(curl -s "http://127.0.0.1:$portkey_port/" 2>/dev/null)" = "AI Gateway says hey!" ] ||
    { echo "serve_bench: Portkey's gateway did not start: $(tr '\r' '\n' <"$work/portkey.log" | tail -20)" >&2; exit 1; }
  portkey_headers=("x-portkey-provider: openai" "x-portkey-custom-host: http://127.0.0.1:$upstream_port/v1")
  portkey_script="$(post_script portkey "$chat_body" "${portkey_headers[@]}")"
  portkey_url="http://127.0.0.1:$portkey_port/v1/chat/completions"
  # "echo: hi" comes from the upstream only: Portkey did ask it.
  check "Portkey's gateway" "$portkey_url" "$chat_body" "echo: hi" "${portkey_headers[@]}"
fi

if [ -n "$nginx_peer" ]; then
  start_nginx "$upstream_port"
  nginx_url="http://127.0.0.1:$nginx_port/v1/chat/completions"
  check "nginx" "$nginx_url" "$chat_body" "echo: hi"
  # cmfpipe without processors, the issue's second row.
  start bare "$build/bin/cmfpipe" serve --listen 127.0.0.1:0 --no-pipeline --upstream "openai=http://127.0.0.1:$upstream_port/v1"
  bare_url="http://127.0.0.1:$(port_of bare)/v1/chat/completions"
  check "cmfpipe --no-pipeline" "$bare_url" "$chat_body" "echo: hi"
  # cmfpipe as the default row, its I/O thread sleeping as soon as it has no work (BUSY_POLL=0).
  busy_poll="${BUSY_POLL:-0}"
  start busy "$build/bin/cmfpipe" serve --listen 127.0.0.1:0 --busy-poll "$busy_poll" --upstream "openai=http://127.0.0.1:$upstream_port/v1"
  busy_url="http://127.0.0.1:$(port_of busy)/v1/chat/completions"
  check "cmfpipe --busy-poll $busy_poll" "$busy_url" "$chat_body" "echo: hi"
fi

# --- (a) ------------------------------------------------------------------------------------------
serve_pid="$(cat "$work/serve.pid")"
measure a "(a)" "$serve_pid" -t2 -c16 -d"${seconds}s" -s "$prompt_script" "$prompt_url"
printf '(a) POST /v1/prompts/chat?to=openai, 16 connections: %s requests/s, p50 %s ms, p99 %s ms; cmfpipe used %s us of CPU a request\n' \
  "${rps[a]}" "${p50[a]}" "${p99[a]}" "${cpu[a:$serve_pid]}"

# --- (b) and (d): the same load, each path after the other, at 1 and at 16 connections -----------
paths=(direct proxy ${peer:+portkey} ${nginx_peer:+nginx bare busy})
declare -A url_of=([direct]="$direct_url" [proxy]="$proxy_url" [portkey]="${portkey_url:-}" [nginx]="${nginx_url:-}" [bare]="${bare_url:-}" [busy]="${busy_url:-}")
declare -A script_of=([direct]="$chat_script" [proxy]="$chat_script" [portkey]="${portkey_script:-}" [nginx]="$chat_script" [bare]="$chat_script" [busy]="$chat_script")
upstream_pid="$(cat "$work/upstream.pid")"
proxy_pid="$(cat "$work/proxy.pid")"
portkey_pid="$(cat "$work/portkey.pid" 2>/dev/null || true)"
bare_pid="$(cat "$work/bare.pid" 2>/dev/null || true)"
busy_pid="$(cat "$work/busy.pid" 2>/dev/null || true)"
declare -A pid_of=([direct]="" [proxy]="$proxy_pid" [portkey]="$portkey_pid" [nginx]="${nginx_pids:-}" [bare]="$bare_pid" [busy]="$busy_pid")
declare -A name_of=([direct]="the bench upstream directly" [proxy]="through cmfpipe" [portkey]="through Portkey" [nginx]="through nginx" [bare]="through cmfpipe --no-pipeline" [busy]="through cmfpipe --busy-poll $busy_poll")
for path in "${paths[@]}"; do  # warm-up, not measured: V8 compiles Portkey's hot code as it runs
  wrk -t2 -c16 -d2s -s "${script_of[$path]}" "${url_of[$path]}" >/dev/null
done
# One connection: ROUNDS rounds of every path in turn, SECONDS / ROUNDS each, and the median of
# each path's rounds: a latency this small moves with the machine's state (CPU idle states, other
# work), and a path measured once, after another, would take that drift for its own.
rounds="${ROUNDS:-5}"
round_seconds=$(((seconds + rounds - 1) / rounds))
median_of() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
declare -A p50_rounds p99_rounds rps_rounds cpu_rounds
for ((r = 1; r <= rounds; r++)); do
  for path in "${paths[@]}"; do
    measure "${path}1" "${name_of[$path]}, 1 connection" "$upstream_pid ${pid_of[$path]}" \
      -t1 -c1 -d"${round_seconds}s" -s "${script_of[$path]}" "${url_of[$path]}"
    p50_rounds[$path]+="${p50[${path}1]} "
    p99_rounds[$path]+="${p99[${path}1]} "
    rps_rounds[$path]+="${rps[${path}1]} "
    for pid in ${pid_of[$path]}; do cpu_rounds[$path:$pid]+="${cpu[${path}1:$pid]} "; done
  done
done
for path in "${paths[@]}"; do
  p50[${path}1]="$(median_of "${p50_rounds[$path]}")"
  p99[${path}1]="$(median_of "${p99_rounds[$path]}")"
  rps[${path}1]="$(median_of "${rps_rounds[$path]}")"
  for pid in ${pid_of[$path]}; do cpu[${path}1:$pid]="$(median_of "${cpu_rounds[$path:$pid]}")"; done
done
for path in "${paths[@]}"; do
  measure "${path}16" "${name_of[$path]}, 16 connections" "$upstream_pid ${pid_of[$path]}" \
    -t2 -c16 -d"${seconds}s" -s "${script_of[$path]}" "${url_of[$path]}"
done
ceiling_note() {  # a 16-connection rate within 20% of the upstream's own is bounded by it
  awk -v a="$1" -v d="${rps[direct16]}" 'BEGIN { if (a >= 0.8 * d) printf " (bounded by the upstream)" }'
}
printf '(b) one connection: upstream directly p50 %s ms p99 %s ms (%s requests/s); through cmfpipe p50 %s ms p99 %s ms (%s requests/s); overhead p50 %s ms, p99 %s ms\n' \
  "${p50[direct1]}" "${p99[direct1]}" "${rps[direct1]}" "${p50[proxy1]}" "${p99[proxy1]}" "${rps[proxy1]}" \
  "$(minus "${p50[proxy1]}" "${p50[direct1]}")" "$(minus "${p99[proxy1]}" "${p99[direct1]}")"
printf '(b) 16 connections: upstream directly %s requests/s, through cmfpipe %s requests/s%s; CPU a request: cmfpipe %s us, the upstream %s us\n' \
  "${rps[direct16]}" "${rps[proxy16]}" "$(ceiling_note "${rps[proxy16]}")" "${cpu[proxy16:$proxy_pid]}" "${cpu[proxy16:$upstream_pid]}"
if [ -n "$peer" ]; then
  ratio="$(awk -v a="${rps[proxy16]}" -v b="${rps[portkey16]}" 'BEGIN {printf "%.1f", a / b}')"
  cpu_ratio="$(awk -v a="${cpu[portkey16:$portkey_pid]}" -v b="${cpu[proxy16:$proxy_pid]}" 'BEGIN {printf "%.1f", a / b}')"
  printf '(d) Portkey %s, one connection: p50 %s ms p99 %s ms (%s requests/s), overhead p50 %s ms, p99 %s ms; 16 connections: %s requests/s, cmfpipe %s requests/s: %sx; CPU a request: Portkey %s us, cmfpipe %s us: %sx\n' \
    "$portkey_version" "${p50[portkey1]}" "${p99[portkey1]}" "${rps[portkey1]}" \
    "$(minus "${p50[portkey1]}" "${p50[direct1]}")" "$(minus "${p99[portkey1]}" "${p99[direct1]}")" \
    "${rps[portkey16]}" "${rps[proxy16]}" "$ratio" "${cpu[portkey16:$portkey_pid]}" "${cpu[proxy16:$proxy_pid]}" "$cpu_ratio"
  kill "$(cat "$work/portkey.pid")"  # idle from here on, but not part of (c)'s machine
fi

if [ -n "$nginx_peer" ]; then
  nginx_cpu() {  # nginx_cpu KEY: the CPU a request of the master and the workers together
    local total=0 p
    for p in $nginx_pids; do total="$(awk -v a="$total" -v b="${cpu[$1:$p]}" 'BEGIN {print a + b}')"; done
    echo "$total"
  }
  nginx_cpu16="$(nginx_cpu nginx16)"
  nginx_cpu_ratio="$(awk -v a="${cpu[proxy16:$proxy_pid]}" -v b="$nginx_cpu16" 'BEGIN {if (b > 0) printf "%.1f", a / b; else print "n/a"}')"
  nginx_rps_share="$(awk -v a="${rps[proxy16]}" -v b="${rps[nginx16]}" 'BEGIN {printf "%.0f", a * 100 / b}')"
  printf '(e) nginx %s, one connection: p50 %s ms p99 %s ms, overhead p50 %s ms (cmfpipe %s ms); 16 connections: %s requests/s, cmfpipe %s requests/s: %s%%; CPU a request: nginx %s us, cmfpipe %s us: %sx\n' \
    "$nginx_version" "${p50[nginx1]}" "${p99[nginx1]}" \
    "$(minus "${p50[nginx1]}" "${p50[direct1]}")" "$(minus "${p50[proxy1]}" "${p50[direct1]}")" \
    "${rps[nginx16]}" "${rps[proxy16]}" "$nginx_rps_share" "$nginx_cpu16" "${cpu[proxy16:$proxy_pid]}" "$nginx_cpu_ratio"
  bare_cpu_ratio="$(awk -v a="${cpu[bare16:$bare_pid]}" -v b="$nginx_cpu16" 'BEGIN {if (b > 0) printf "%.1f", a / b; else print "n/a"}')"
  bare_rps_share="$(awk -v a="${rps[bare16]}" -v b="${rps[nginx16]}" 'BEGIN {printf "%.0f", a * 100 / b}')"
  printf '(e) cmfpipe --no-pipeline: overhead p50 %s ms; 16 connections: %s requests/s: %s%% of nginx'"'"'s; CPU a request %s us: %sx\n' \
    "$(minus "${p50[bare1]}" "${p50[direct1]}")" "${rps[bare16]}" "$bare_rps_share" "${cpu[bare16:$bare_pid]}" "$bare_cpu_ratio"
  busy_cpu_ratio="$(awk -v a="${cpu[busy16:$busy_pid]}" -v b="$nginx_cpu16" 'BEGIN {if (b > 0) printf "%.1f", a / b; else print "n/a"}')"
  busy_rps_share="$(awk -v a="${rps[busy16]}" -v b="${rps[nginx16]}" 'BEGIN {printf "%.0f", a * 100 / b}')"
  printf '(e) cmfpipe --busy-poll %s: overhead p50 %s ms (CPU a request at one connection %s us, by default %s us); 16 connections: %s requests/s: %s%% of nginx'"'"'s; CPU a request %s us: %sx\n' \
    "$busy_poll" "$(minus "${p50[busy1]}" "${p50[direct1]}")" "${cpu[busy1:$busy_pid]}" "${cpu[proxy1:$proxy_pid]}" "${rps[busy16]}" "$busy_rps_share" "${cpu[busy16:$busy_pid]}" "$busy_cpu_ratio"

  # (f) one connection, a request every PACE_MS: wrk's delay() hook waits that long after each
  # answer. The rounds take turns as in (b); CPU from the threads' schedstat (nanoseconds: a
  # round's few thousand requests are a few clock ticks of CPU).
  pace_ms="${PACE_MS:-1}"
  paced_script="$work/paced.lua"
  { cat "$chat_script"; printf 'function delay() return %s end\n' "$pace_ms"; } >"$paced_script"
  declare -A paced_rounds
  for ((r = 1; r <= rounds; r++)); do
    for path in proxy busy; do
      before_ns="$(cpu_ns_all "${pid_of[$path]}")"
      out="$(wrk "-t1" "-c1" "-d${round_seconds}s" -s "$paced_script" "${url_of[$path]}" 2>&1)" ||
        { echo "serve_bench: (f) ${name_of[$path]}: wrk failed: $out" >&2; exit 1; }
      after_ns="$(cpu_ns_all "${pid_of[$path]}")"
      if grep -qE 'Non-2xx|Socket errors' <<<"$out"; then
        echo "serve_bench: (f) ${name_of[$path]}: not every request was answered with 2xx:" >&2
        echo "$out" >&2
        exit 1
      fi
      answered="$(awk '/ requests in / {print $1}' <<<"$out")"
      paced_rounds[$path]+="$(awk -v a="$after_ns" -v b="$before_ns" -v n="$answered" 'BEGIN {printf "%.0f", (a - b) / n / 1000}') "
    done
  done
  paced_proxy="$(median_of "${paced_rounds[proxy]}")"
  paced_busy="$(median_of "${paced_rounds[busy]}")"
  printf '(f) one request every %s ms: CPU a request, cmfpipe by default %s us, with --busy-poll %s %s us\n' \
    "$pace_ms" "$paced_proxy" "$busy_poll" "$paced_busy"
  kill "$(cat "$work/nginx.pid")" "$bare_pid" "$busy_pid"
fi

# --- (c) ------------------------------------------------------------------------------------------
# A fresh server; wrk answers exactly `small`, then `large - small` more requests: each of its 2
# threads stops after its share of responses (response() hook), and appends "<responses> <not
# 200>" to a file as it does. wrk's main thread sleeps out -d even when its threads are done, so
# it is interrupted once they have exited; -d only bounds a run that stalls (under 1,000
# answers/s). Requests in flight when a thread stops (at most 14) reach the server too: the
# server's own count is printed beside wrk's.
start serve_c "$build/bin/cmfpipe" serve --listen 127.0.0.1:0 --prompts "$work/prompts"
c_port="$(port_of serve_c)"
c_pid="$(cat "$work/serve_c.pid")"
c_url="http://127.0.0.1:$c_port/v1/prompts/chat?to=openai"
counted_script="$work/counted.lua"
{
  cat "$prompt_script"
  cat <<'EOF'
local next_id = 0
function setup(thread)
  thread:set("id", next_id)
  next_id = next_id + 1
end
local share, seen, failed, done_file
function init(args)  -- args: TOTAL THREADS DONE_FILE
  local total, threads = tonumber(args[1]), tonumber(args[2])
  share = math.floor(total / threads) + (id < total % threads and 1 or 0)
  done_file, seen, failed = args[3], 0, 0
end
function response(status)
  seen = seen + 1
  if status ~= 200 then failed = failed + 1 end
  if seen == share then
    local f = io.open(done_file, "a")
    f:write(seen, " ", failed, "\n")
    f:close()
    wrk.thread:stop()
  end
end
EOF
} >"$counted_script"
served() {
  curl -s "http://127.0.0.1:$c_port/metrics" |
    awk 'index($0, "cmfpipe_http_requests_total{route=\"/v1/prompts/{name}\",status=\"200\"}") == 1 {n = $NF}
         END {print n + 0}'
}
rss() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
run_counted() {  # run_counted N
  local n="$1" done_file="$work/counted.done" wpid answered failed
  : >"$done_file"
  wrk -t2 -c16 -d"$((n / 1000 + 60))s" -s "$counted_script" "$c_url" -- "$n" 2 "$done_file" >"$work/counted.out" &
  wpid=$!
  pids+=("$wpid")
  while kill -0 "$wpid" 2>/dev/null && [ "$(wc -l <"$done_file")" -lt 2 ]; do sleep 0.1; done
  while [ "$(ls "/proc/$wpid/task" 2>/dev/null | wc -l)" -gt 1 ]; do sleep 0.01; done
  kill -INT "$wpid" 2>/dev/null || true
  wait "$wpid" || true
  read -r answered failed < <(awk '{a += $1; f += $2} END {print a + 0, f + 0}' "$done_file")
  if [ "$answered" -ne "$n" ] || [ "$failed" -ne 0 ]; then
    echo "serve_bench: (c) wanted $n answers, wrk's threads counted $answered ($failed not 200):" >&2
    cat "$work/counted.out" >&2
    exit 1
  fi
}
run_counted "$small"
rss_small="$(rss "$c_pid")"
served_small="$(served)"
run_counted "$((large - small))"
rss_large="$(rss "$c_pid")"
served_large="$(served)"
growth="$(awk -v a="$rss_large" -v b="$rss_small" 'BEGIN {printf "%.1f", (a - b) * 100 / b}')"
printf '(c) resident memory after %s requests %s kB, after %s requests %s kB: growth %s%% (the server counted %s and %s)\n' \
  "$small" "$rss_small" "$large" "$rss_large" "$growth" "$served_small" "$served_large"

# --- summary --------------------------------------------------------------------------------------
ms() { awk -v v="$1" 'BEGIN {printf "%.2f", v}'; }
echo
echo "summary: serve_bench.sh ${peer:+--peer $peer }${nginx_peer:+--peer nginx }$seconds, $(date -u +%Y-%m-%d), $(nproc) cores shared by wrk and the servers, $(wrk --version 2>&1 | head -1 | awk '{print "wrk", $2}')${peer:+, node $(node --version)}"
echo
echo "| serve_bench | figure |"
echo "|---|---|"
echo "| (a) \`POST /v1/prompts/chat?to=openai\`, 16 connections | **$(thousands "${rps[a]}") requests/s, p50 $(ms "${p50[a]}") ms, p99 $(ms "${p99[a]}") ms** (goal 15,000 requests/s); ${cpu[a:$serve_pid]} µs of CPU a request |"
echo "| (b) proxy overhead, 1 connection, bench upstream directly / through \`/v1/chat/completions\` | p50 ${p50[direct1]} / ${p50[proxy1]} ms, p99 ${p99[direct1]} / ${p99[proxy1]} ms: **overhead p50 $(minus "${p50[proxy1]}" "${p50[direct1]}") ms, p99 $(minus "${p99[proxy1]}" "${p99[direct1]}") ms** (goals 0.2 ms, 1 ms) |"
echo "| (b) 16 connections, bench upstream directly / through cmfpipe | $(thousands "${rps[direct16]}") / $(thousands "${rps[proxy16]}") requests/s$(ceiling_note "${rps[proxy16]}"); CPU a request through cmfpipe: cmfpipe ${cpu[proxy16:$proxy_pid]} µs, the Python upstream ${cpu[proxy16:$upstream_pid]} µs |"
echo "| (c) resident memory after $(thousands "$small") / $(thousands "$large") prompt requests | $(thousands "$rss_small") / $(thousands "$rss_large") kB: **growth $growth %** (goal ≤ 10 %) |"
if [ -n "$peer" ]; then
  echo "| (d) Portkey gateway $portkey_version (node), 1 connection, same bench upstream | p50 ${p50[portkey1]} ms, p99 ${p99[portkey1]} ms: **overhead p50 $(minus "${p50[portkey1]}" "${p50[direct1]}") ms, p99 $(minus "${p99[portkey1]}" "${p99[direct1]}") ms** (cmfpipe's: $(minus "${p50[proxy1]}" "${p50[direct1]}"), $(minus "${p99[proxy1]}" "${p99[direct1]}") ms) |"
  echo "| (d) 16 connections, cmfpipe / Portkey | $(thousands "${rps[proxy16]}") / $(thousands "${rps[portkey16]}") requests/s: **cmfpipe ${ratio}x** (goal ≥ 10x); CPU a request $(thousands "${cpu[proxy16:$proxy_pid]}") / $(thousands "${cpu[portkey16:$portkey_pid]}") µs: **${cpu_ratio}x** |"
else
  echo "| (d) Portkey side by side | not run (\`--peer portkey\`) |"
fi
if [ -n "$nginx_peer" ]; then
  echo
  echo "| path (requests/s and CPU at 16 connections; overhead at 1, p50 over the upstream's) | requests/s | CPU a request in the proxy | overhead p50 |"
  echo "|---|---|---|---|"
  echo "| the upstream directly | $(thousands "${rps[direct16]}") | (upstream: ${cpu[direct16:$upstream_pid]} µs) | |"
  echo "| nginx $nginx_version \`proxy_pass\`, keep-alive pool | $(thousands "${rps[nginx16]}") | **$nginx_cpu16 µs** | $(minus "${p50[nginx1]}" "${p50[direct1]}") ms |"
  echo "| cmfpipe \`/v1/chat/completions\`, default pipeline | $(thousands "${rps[proxy16]}") ($nginx_rps_share% of nginx's) | **${cpu[proxy16:$proxy_pid]} µs** (${nginx_cpu_ratio}x nginx's; ${cpu[proxy1:$proxy_pid]} µs at one connection, $paced_proxy µs at one request every $pace_ms ms) | $(minus "${p50[proxy1]}" "${p50[direct1]}") ms |"
  echo "| cmfpipe \`/v1/chat/completions\`, \`--no-pipeline\` | $(thousands "${rps[bare16]}") ($bare_rps_share% of nginx's) | **${cpu[bare16:$bare_pid]} µs** (${bare_cpu_ratio}x nginx's) | $(minus "${p50[bare1]}" "${p50[direct1]}") ms |"
  echo "| cmfpipe \`/v1/chat/completions\`, default pipeline, \`--busy-poll $busy_poll\` | $(thousands "${rps[busy16]}") ($busy_rps_share% of nginx's) | **${cpu[busy16:$busy_pid]} µs** (${busy_cpu_ratio}x nginx's; ${cpu[busy1:$busy_pid]} µs at one connection, $paced_busy µs at one request every $pace_ms ms) | $(minus "${p50[busy1]}" "${p50[direct1]}") ms |"
fi
