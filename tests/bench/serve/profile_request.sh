#!/usr/bin/env bash
# Where a proxied request's CPU goes, in instructions (valgrind's callgrind): cmfpipe serve with
# one pool thread in front of bench_upstream.py; one kept-alive connection sends WARMUP requests,
# the counters are zeroed (callgrind_control -z), REQUESTS more are sent, the counters dumped
# (-d). Prints instructions a request and the inclusive share of each stage. Instruction counts
# do not depend on the machine's load, unlike times.
# usage: tests/bench/serve/profile_request.sh [--route chat|prompt|stream|messages | --peer nginx] [REQUESTS] [-- SERVE-OPTIONS...]
#   REQUESTS measured (default 2000, after 200 warm-up; stream: a streamed answer of 100 deltas
#   each, DELTAS=N for another length); SERVE-OPTIONS go to `cmfpipe serve`
#   (e.g. --no-pipeline). env: CMFPIPE_BUILD_DIR (default build/); KEEP=DIR keeps the profile
#   there (callgrind_annotate --inclusive=yes DIR/cg.out); ANNOTATE=DIR/cg.out REQUESTS prints the
#   tables of a kept profile again without running anything. --peer nginx profiles nginx instead
#   (one process, `proxy_pass` with a keep-alive pool to the same upstream, the chat route's
#   request): its instructions a request, the floor a proxy that does not read the body sets.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
build="${CMFPIPE_BUILD_DIR:-$root/build}"
route=chat
requests=2000
warmup="${WARMUP:-200}"
while [ $# -gt 0 ]; do
  case "$1" in
    --route) route="$2"; shift 2 ;;
    --peer) [ "${2:-}" = nginx ] || { echo "profile_request: the peer is nginx" >&2; exit 2; }; route=nginx; shift 2 ;;
    --) shift; break ;;
    -h | --help) sed -n '/^# usage:/,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) requests="$1"; shift ;;
  esac
done
for tool in valgrind callgrind_control callgrind_annotate python3; do
  command -v "$tool" >/dev/null || { echo "profile_request: needs $tool (apt-get install valgrind)" >&2; exit 2; }
done
send() {  # send N: N requests on one kept-alive connection, each answered 200
  python3 - "$port" "$1" "$path" "$body" <<'EOF'
import http.client, sys
port, n, path, body = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
c = http.client.HTTPConnection("127.0.0.1", port)
for _ in range(n):
    c.request("POST", path, body, {"Content-Type": "application/json"})
    r = c.getresponse()
    d = r.read()
    if r.status != 200:
        sys.exit(f"profile_request: {r.status} {d[:300]!r}")
EOF
}
if [ -n "${ANNOTATE:-}" ]; then
  profile="$ANNOTATE"  # a profile kept with KEEP: only its tables
else
  bench=profile_request
  # shellcheck source=tests/bench/serve/processes.sh
  source "$root/tests/bench/serve/processes.sh"

  serve=(valgrind --tool=callgrind --callgrind-out-file="$work/cg.%p" "$build/bin/cmfpipe" serve
    --listen 127.0.0.1:0 --threads 1)
  case "$route" in
    chat)
      start upstream python3 "$root/tests/bench/serve/bench_upstream.py"
      serve+=(--upstream "openai=http://127.0.0.1:$(port_of upstream)/v1")
      path=/v1/chat/completions
      body='{"model": "bench", "messages": [{"role": "system", "content": "You are a helpful assistant."}, {"role": "user", "content": "What is the capital of France? Answer in one word please."}]}'
      ;;
    messages)
      start upstream python3 "$root/tests/bench/serve/bench_upstream.py"
      serve+=(--upstream "anthropic=http://127.0.0.1:$(port_of upstream)/v1")
      path=/v1/messages
      body='{"model": "bench", "max_tokens": 256, "system": "You are a helpful assistant.", "messages": [{"role": "user", "content": "What is the capital of France? Answer in one word please."}]}'
      ;;
    stream)  # a streamed answer of DELTAS (100) deltas of 200 characters a request
      start upstream python3 "$root/tests/bench/serve/bench_upstream.py"
      serve+=(--upstream "openai=http://127.0.0.1:$(port_of upstream)/v1")
      path=/v1/chat/completions
      body='{"model": "deltas-'"${DELTAS:-100}"'", "stream": true, "messages": [{"role": "user", "content": "go"}]}'
      ;;
    nginx)
      start upstream python3 "$root/tests/bench/serve/bench_upstream.py"
      nginx_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
      mkdir -p "$work/nginx"
      {
        echo "master_process off; daemon off; pid $work/nginx/master.pid; error_log $work/nginx/error.log warn;"
        echo "events { worker_connections 1024; }"
        echo "http { access_log off; client_body_temp_path $work/nginx/body; proxy_temp_path $work/nginx/proxy;"
        echo "  fastcgi_temp_path $work/nginx/fastcgi; uwsgi_temp_path $work/nginx/uwsgi; scgi_temp_path $work/nginx/scgi;"
        echo "  upstream bench { server 127.0.0.1:$(port_of upstream); keepalive 32; }"
        echo "  server { listen 127.0.0.1:$nginx_port; location / { proxy_pass http://bench; proxy_http_version 1.1; proxy_set_header Connection \"\"; } } }"
      } >"$work/nginx/nginx.conf"
      serve=(valgrind --tool=callgrind --callgrind-out-file="$work/cg.%p" "$(command -v nginx || echo /usr/sbin/nginx)"
        -p "$work/nginx" -c "$work/nginx/nginx.conf")
      path=/v1/chat/completions
      body='{"model": "bench", "messages": [{"role": "system", "content": "You are a helpful assistant."}, {"role": "user", "content": "What is the capital of France? Answer in one word please."}]}'
      ;;
    prompt)
      mkdir -p "$work/prompts"
      cp "$root/examples/prompty/chat.prompty" "$work/prompts/"
      serve+=(--prompts "$work/prompts")
      path='/v1/prompts/chat?to=openai'
      body='{"question": "What is a nonce, in one sentence?"}'
      ;;
    *) echo "profile_request: unknown route '$route' (chat, prompt, stream; or --peer nginx)" >&2; exit 2 ;;
  esac
  start serve "${serve[@]}" "$@"
  if [ "$route" = nginx ]; then
    port="$nginx_port"
    for _ in $(seq 300); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
  else
    port="$(port_of serve)"
  fi
  pid="$(cat "$work/serve.pid")"
  send "$warmup"
  callgrind_control -z "$pid" >/dev/null 2>&1
  send "$requests"
  callgrind_control -d "$pid" >/dev/null 2>&1
  profile="$(ls -t "$work"/cg."$pid".* | head -1)"
  [ -z "${KEEP:-}" ] || { mkdir -p "$KEEP"; cp "$profile" "$KEEP/cg.out"; }
fi
inclusive="$(callgrind_annotate --auto=no --inclusive=yes --threshold=100 "$profile" 2>/dev/null)"
total="$(awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}' <<<"$inclusive")"
if [ "$route" = nginx ]; then what="nginx proxy_pass, one process"; else what="cmfpipe serve --threads 1 $*"; fi
echo "profile_request: $route, $requests requests after $warmup, $what"
echo "$((total / requests)) instructions a request (user space)"
[ "$route" != nginx ] || exit 0
echo
echo "| stage (inclusive) | instructions a request | share |"
echo "|---|---:|---:|"
# stage LABEL REGEX: the largest inclusive count of a function whose name matches REGEX (the
# outermost of a recursion), a request.
best() {
  awk -v re="$1" '$2 ~ /^\(/ && $0 ~ re { gsub(",", "", $1); if ($1 + 0 > b) b = $1 + 0 } END { print b + 0 }' <<<"$inclusive"
}
stage() {
  awk -v label="$1" -v re="$2" -v total="$total" -v n="$requests" '
    $2 ~ /^\(/ && $0 ~ re { gsub(",", "", $1); if ($1 + 0 > best) best = $1 + 0 }
    END { printf "| %s | %d | %.1f%% |\n", label, best / n, best * 100 / total }' <<<"$inclusive"
}
# The proxy's coroutine starts inside Router::handle (and runs there up to its first wait:
# Proxy::prepare, the upstream write): the router's own cost is Router::handle less the coroutine
# it runs (the callees awaitable_thread / Proxy::answer of its lines in the calling tree).
calling="$(callgrind_annotate --auto=no --tree=calling --inclusive=yes --threshold=100 "$profile" 2>/dev/null)"
router_coroutine="$(awk '
  /^ *[0-9,]+ .*\*  / { inside = ($0 ~ /serve::Router::handle\(/) ; next }
  inside && /^ *[0-9,]+ .*>   / && /(awaitable_thread<|serve::Proxy::answer\()/ { gsub(",", "", $1); sum += $1 }
  END { print sum + 0 }' <<<"$calling")"
router=$(($(best 'serve::Router::handle\(') - router_coroutine))
prepare="$(best 'serve::Proxy::prepare\(')"
finish="$(best 'serve::Proxy::finish\(')"
service="$(best 'host::Service::run(_within)?\(')"
# The prompt route's run is done inside Router::handle when it is small (on the I/O thread): it is
# its own row, not the router's.
[ "$service" -eq 0 ] || [ "$service" -gt "$router" ] || router=$((router - service))
row() {  # row LABEL COUNT
  awk -v label="$1" -v c="$2" -v total="$total" -v n="$requests" 'BEGIN {
    printf "| %s | %d | %.1f%% |\n", label, c / n, c * 100 / total }'
}
row "router's own work: route, request id, answer's hand-back (Router::handle less the coroutine it starts)" "$router"
stage "client body -> upstream body (Proxy::prepare)" 'serve::Proxy::prepare\('
stage "  the body read from its text, no tree (the adapter's request_text_messages)" 'GuardedAdapter::request_text_messages\('
stage "  JSON parse, all (json_text::parse: a body or answer no text reader took)" 'cmfpipe::json_text::parse\('
stage "  JSON to CMF (adapter request_messages)" 'GuardedAdapter::request_messages\('
stage "  processors, both hooks (Pipeline::run)" 'pipeline::Pipeline::run\('
stage "  CMF back to the body (with_request_messages)" 'GuardedAdapter::with_request_messages\('
stage "  serialise, both ways (json dump)" 'basic_json<.*>::dump\('
stage "  the pass-through check (keys_plain_and_distinct), both ways" 'keys_plain_and_distinct\('
stage "upstream answer -> client answer (Proxy::finish)" 'serve::Proxy::finish\('
stage "  the answer read from its text, no tree (the adapter's answer_text_messages)" 'GuardedAdapter::answer_text_messages\('
stage "  answer parse (try_parse_json)" 'cmfpipe::try_parse_json\('
stage "  adapter from_wire (its parse included)" 'GuardedAdapter::from_wire\('
stage "  answer CMF back (with_response_messages)" 'GuardedAdapter::with_response_messages\('
row "prompt route: render, processors, adapter (Service::run)" "$service"
rest=$((total - router - prepare - finish - service))
row "the rest: HTTP read and write (Beast), the upstream client, pool hops, coroutines" "$rest"
row "(the four rows above add up to the total)" "$((router + prepare + finish + service + rest))"
row "plumbing: total - Proxy::prepare - Proxy::finish - Service::run" "$((total - prepare - finish - service))"
stage "  of all: epoll (socket readiness)" 'epoll_reactor::run\('
stage "  of all: malloc (all callers)" 'malloc\.c:malloc '
stage "  of all: free (all callers)" 'malloc\.c:free '
