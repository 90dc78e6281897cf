# Sourced by the serve benchmarks (serve_bench.sh, stream_bench.sh): the servers they start and
# how their CPU is read. Set $bench (the script's name, for messages) before sourcing.
#   start NAME COMMAND...  a server in the background (its pid in $work/NAME.pid, its output in
#                          $work/NAME.log); all are killed, and $work removed, when the script exits
#   port_of NAME           waits for the line that names its port and prints the port
#   cpu_ticks PID          its utime + stime, in clock ticks ($hz a second)
#   cpu_ns_all PID...      the time their threads ran, in nanoseconds (/proc/PID/task/*/schedstat:
#                          exact where clock ticks count 10 ms at a time)
work="$(mktemp -d)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
hz="$(getconf CLK_TCK)"

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
  echo "$bench: $1 did not start: $(cat "$work/$1.log")" >&2
  exit 1
}
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }
cpu_ns_all() {
  local p
  for p in "$@"; do cat /proc/"$p"/task/*/schedstat; done | awk '{t += $1} END {printf "%.0f\n", t}'
}
cpu_ticks_all() {  # cpu_ticks_all PID...: their utime + stime together
  local total=0 p
  for p in "$@"; do total=$((total + $(cpu_ticks "$p"))); done
  echo "$total"
}

# start_nginx UPSTREAM_PORT [DIRECTIVE...]: nginx (Debian's package, installed with apt-get when
# missing) as a plain proxy_pass to 127.0.0.1:UPSTREAM_PORT with a keep-alive pool (HTTP/1.1, no
# "Connection: close"), no access log, one worker a core; each DIRECTIVE goes into its location
# (e.g. "proxy_buffering off;"). Sets nginx_port, nginx_pids (the master and its workers, whose
# CPU together is nginx's) and nginx_version; everything it writes stays in $work/nginx.
start_nginx() {
  local upstream_port="$1" directive
  shift
  if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then
    echo "$bench: installing nginx (apt-get install -y nginx; or install it yourself)" >&2
    apt-get install -y nginx >/dev/null 2>&1 || { echo "$bench: needs nginx: apt-get install -y nginx failed (run it as root)" >&2; exit 2; }
  fi
  local nginx_bin
  nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"
  nginx_version="$("$nginx_bin" -v 2>&1 | sed 's/.*nginx\///')"
  nginx_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  mkdir -p "$work/nginx"
  {
    echo "worker_processes auto; daemon off; pid $work/nginx/master.pid; error_log $work/nginx/error.log warn;"
    echo "events { worker_connections 1024; }"
    echo "http { access_log off; client_body_temp_path $work/nginx/body; proxy_temp_path $work/nginx/proxy;"
    echo "  fastcgi_temp_path $work/nginx/fastcgi; uwsgi_temp_path $work/nginx/uwsgi; scgi_temp_path $work/nginx/scgi;"
    echo "  upstream bench { server 127.0.0.1:$upstream_port; keepalive 32; }"
    echo "  server { listen 127.0.0.1:$nginx_port; location / { proxy_pass http://bench; proxy_http_version 1.1; proxy_set_header Connection \"\";"
    for directive in "$@"; do echo "    $directive"; done
    echo "  } } }"
  } >"$work/nginx/nginx.conf"
  start nginx "$nginx_bin" -p "$work/nginx" -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log"
  for _ in $(seq 100); do
    [ -s "$work/nginx/master.pid" ] && [ -n "$(cat "/proc/$(cat "$work/nginx.pid")/task/"*/children 2>/dev/null)" ] && break
    sleep 0.05
  done
  nginx_pids="$(cat "$work/nginx.pid") $(cat "/proc/$(cat "$work/nginx.pid")/task/"*/children)"
}
