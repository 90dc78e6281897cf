# Sourced by the serve benchmarks (serve_bench.sh, stream_bench.sh): the servers they start and
# how their CPU is read. Set $bench (the script's name, for messages) before sourcing.
#   start NAME COMMAND...  a server in the background (its pid in $work/NAME.pid, its output in
#                          $work/NAME.log); all are killed, and $work removed, when the script exits
#   port_of NAME           waits for the line that names its port and prints the port
#   cpu_ticks PID          its utime + stime, in clock ticks ($hz a second)
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
