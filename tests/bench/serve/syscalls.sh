#!/usr/bin/env bash
# The system calls of a proxied request, by kind: cmfpipe serve (--threads 1, one I/O thread) and
# nginx (proxy_pass with a keep-alive pool) in front of the same bench_upstream.py, one kept-alive
# connection sending the chat route's 185-byte request. strace -c counts every thread of cmfpipe
# and every nginx worker while REQUESTS requests are sent (after 100 to warm up), and the counts a
# request are printed side by side. Kernel time is a large share of a small request's CPU: each
# call a request is ~1-2 us.
# usage: tests/bench/serve/syscalls.sh [REQUESTS] [-- SERVE-OPTIONS...]   (default 2000; needs strace)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
build="${CMFPIPE_BUILD_DIR:-$root/build}"
requests=2000
while [ $# -gt 0 ]; do
  case "$1" in
    --) shift; break ;;
    -h | --help) sed -n '/^# usage:/p' "${BASH_SOURCE[0]}" | sed 's/^# //'; exit 0 ;;
    *) requests="$1"; shift ;;
  esac
done
command -v strace >/dev/null || { echo "syscalls: needs strace (apt-get install strace)" >&2; exit 2; }
bench=syscalls
# shellcheck source=tests/bench/serve/processes.sh
source "$root/tests/bench/serve/processes.sh"
start upstream python3 "$root/tests/bench/serve/bench_upstream.py"
up="$(port_of upstream)"
body='{"model": "bench", "messages": [{"role": "system", "content": "You are a helpful assistant."}, {"role": "user", "content": "What is the capital of France? Answer in one word please."}]}'
send() {  # send PORT N
  python3 - "$1" "$2" "$body" <<'PY'
import http.client, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]))
for _ in range(int(sys.argv[2])):
    c.request("POST", "/v1/chat/completions", sys.argv[3], {"Content-Type": "application/json"})
    r = c.getresponse(); r.read()
    if r.status != 200: sys.exit(f"syscalls: {r.status}")
PY
}
count() {  # count NAME PORT PID...: strace -c of the PIDs over $requests requests into $work/NAME.st
  local name="$1" port="$2" args=() p
  shift 2
  for p in "$@"; do args+=(-p "$p"); done
  send "$port" 100
  strace -c -f -o "$work/$name.st" "${args[@]}" 2>/dev/null &
  local tracer=$!
  sleep 0.5
  send "$port" "$requests"
  kill -INT "$tracer"
  wait "$tracer" 2>/dev/null || true
}
start serve "$build/bin/cmfpipe" serve --listen 127.0.0.1:0 --threads 1 --upstream "openai=http://127.0.0.1:$up/v1" "$@"
count cmfpipe "$(port_of serve)" "$(cat "$work/serve.pid")"
start_nginx "$up"
# shellcheck disable=SC2086
count nginx "$nginx_port" $(cat "/proc/$(cat "$work/nginx.pid")/task/"*/children)
python3 - "$requests" "$work/cmfpipe.st" "$work/nginx.st" <<'PY'
import sys
n = int(sys.argv[1])
def calls(path):
    out = {}
    for line in open(path):
        f = line.split()
        # % time, seconds, usecs/call, calls, [errors], syscall
        if len(f) >= 5 and f[0][0].isdigit() and f[-1] != "total":
            errors = int(f[4]) if len(f) == 6 else 0
            out[f[-1]] = (int(f[3]), errors)
    return out
a, b = calls(sys.argv[2]), calls(sys.argv[3])
names = sorted(set(a) | set(b), key=lambda k: -(a.get(k, (0, 0))[0] + b.get(k, (0, 0))[0]))
def cell(d, k):
    c, e = d.get(k, (0, 0))
    return f"{c / n:.2f}" + (f" ({e / n:.2f} failed)" if e else "")
print(f"syscalls a request, {n} requests on one kept-alive connection")
print("| syscall | cmfpipe | nginx |")
print("|---|---:|---:|")
for k in names:
    if (a.get(k, (0, 0))[0] + b.get(k, (0, 0))[0]) / n < 0.005: continue
    print(f"| {k} | {cell(a, k)} | {cell(b, k)} |")
ta, tb = sum(c for c, _ in a.values()), sum(c for c, _ in b.values())
print(f"| **total** | **{ta / n:.2f}** | **{tb / n:.2f}** |")
PY
