#!/usr/bin/env bash
# The container image (deploy/Dockerfile) built with podman and started: /health, one prompt
# request, the health check, a non-root user, and a drain on `podman stop` (issue 30, point 6).
#
#   bash tests/deploy/image_smoke.sh [SOURCE_DIR]
#
# The base image is debian:bookworm-slim from its registry, or $CMFPIPE_DEPLOY_BASE_IMAGE: an
# image already in podman's storage (a mirror's, or a bookworm made from the Debian archive where
# no registry can be reached: `mmdebstrap --variant=minbase bookworm base.tar && podman import
# base.tar localhost/bookworm-local`). The build compiles cmfpipe in the image (minutes the first
# time; podman's layer cache keeps it while the sources do not change). $CMFPIPE_JOBS bounds the
# compile jobs. $CMFPIPE_DEPLOY_IMAGE names an image already built from deploy/Dockerfile to test
# instead of building one.
#
# Exit 77 (ctest's SKIP_RETURN_CODE) with a "SKIPPED: ..." line when podman is missing, the base
# image cannot be had, or podman cannot start a container on this machine: never passed unrun.
set -euo pipefail
source_dir="$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")/../..}" && pwd)"
image=localhost/cmfpipe:smoke
name="cmfpipe-smoke-$$"
skip() {
  echo "SKIPPED: deploy/image: $*; the image was NOT tested"
  exit 77
}
command -v podman >/dev/null || skip "podman is not installed (Debian: apt-get install podman, or scripts/install-deps.sh --deploy)"
command -v python3 >/dev/null || skip "python3 is not installed (it asks the container)"

base="${CMFPIPE_DEPLOY_BASE_IMAGE:-docker.io/library/debian:bookworm-slim}"
if ! podman image exists "$base"; then
  if ! pulled="$(timeout 120 podman pull -q "$base" 2>&1)"; then
    skip "the base image $base cannot be had: $(tail -1 <<<"$pulled")"
  fi
fi

# A machine without CAP_SYS_RESOURCE refuses podman's default rlimits, and crun refuses hybrid
# cgroups: where the defaults cannot start a container, runc and the limits this shell has.
scratch="$(mktemp -d)"
cleanup() {
  podman rm -f "$name" >/dev/null 2>&1 || true
  rm -rf "$scratch"
}
trap cleanup EXIT
if ! probe="$(timeout 120 podman run --rm "$base" true 2>&1)"; then
  nofile="$(ulimit -n)"
  cat >"$scratch/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=32768:32768"]
[engine]
runtime = "runc"
EOF
  export CONTAINERS_CONF="$scratch/containers.conf"
  if ! timeout 120 podman run --rm "$base" true >/dev/null 2>&1; then
    skip "podman cannot start a container here: $(tail -1 <<<"$probe")"
  fi
  echo "image_smoke: podman with runc and nofile=$nofile, nproc=32768 (the defaults: $(tail -1 <<<"$probe"))"
fi

if [[ -n "${CMFPIPE_DEPLOY_IMAGE:-}" ]]; then
  image="$CMFPIPE_DEPLOY_IMAGE"
  echo "image_smoke: the image $image as it is (CMFPIPE_DEPLOY_IMAGE), not built"
else
started=$(date +%s)
echo "image_smoke: podman build -f deploy/Dockerfile (base $base)"
if ! timeout 3000 podman build --network host -f "$source_dir/deploy/Dockerfile" \
    --ignorefile "$source_dir/deploy/Dockerfile.dockerignore" --format docker \
    --build-arg "BASE_IMAGE=$base" ${CMFPIPE_JOBS:+--build-arg "CMFPIPE_JOBS=$CMFPIPE_JOBS"} \
    -t "$image" "$source_dir" >"$scratch/build.log" 2>&1; then
  tail -30 "$scratch/build.log"
  echo "FAILED: podman build"
  exit 1
fi
echo "image_smoke: built in $(($(date +%s) - started)) s, $(podman image inspect -f '{{.Size}}' "$image" | awk '{printf "%.0f MB", $1 / 1e6}')"
fi

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
# --health-interval disable: no timer (it wants systemd); `podman healthcheck run` below asks once.
# (podman 4.3 still complains on stderr that it has no systemd for the timer: kept out of the way.)
podman run -d --name "$name" --health-interval disable -p "127.0.0.1:$port:8080" "$image" \
  >/dev/null 2>"$scratch/run.err" || { cat "$scratch/run.err"; echo "FAILED: podman run"; exit 1; }
# The image's own command: 0.0.0.0:8080, /srv/prompts (chat.prompty), /etc/cmfpipe/pipeline.yaml.
python3 - "$port" <<'EOF'
import json, sys, time, urllib.request
port = sys.argv[1]
base = "http://127.0.0.1:%s" % port
for _ in range(300):
    try:
        with urllib.request.urlopen(base + "/health", timeout=2) as answer:
            health = (answer.status, json.load(answer))
        break
    except OSError:
        time.sleep(0.1)
else:
    sys.exit("FAILED: /health did not answer within 30 s")
assert health == (200, {"status": "ok"}), health
request = urllib.request.Request(base + "/v1/prompts/chat?to=openai", method="POST",
                                 data=json.dumps({"question": "What is a nonce?"}).encode())
with urllib.request.urlopen(request, timeout=10) as answer:
    messages = json.load(answer)["messages"]
wanted = [{"role": "system", "content": "You are a concise assistant. You are helping Jane."},
          {"role": "user", "content": "What is a nonce?"}]
assert messages == wanted, messages
print("image_smoke: GET /health 200 %s; POST /v1/prompts/chat answered %s" %
      (json.dumps(health[1]), json.dumps(messages)))
EOF
user="$(podman exec "$name" id -u)"
[[ "$user" == 10001 ]] || { echo "FAILED: the server runs as uid $user, not 10001"; exit 1; }
podman healthcheck run "$name" || { echo "FAILED: the image's HEALTHCHECK"; exit 1; }
# SIGTERM as `podman stop` sends it: the health check fails at once (draining), then the
# drain delay (5 s by default) and exit 0.
stop_started=$(date +%s.%N)
podman kill -s TERM "$name" >/dev/null 2>>"$scratch/run.err"
healthy=1
for _ in 1 2 3 4 5; do  # the signal is handled on the server's I/O thread, a moment later
  if ! podman healthcheck run "$name" >/dev/null 2>&1; then healthy=0; break; fi
  sleep 0.2
done
[[ $healthy == 0 ]] || { echo "FAILED: the HEALTHCHECK still passes while the server drains"; exit 1; }
status="$(timeout 30 podman wait "$name" 2>>"$scratch/run.err")"
stopped=$(date +%s.%N)
logs="$(podman logs "$name" 2>&1 | grep -v '^time=.* level=' || true)"
grep -q "draining, /health answers 503" <<<"$logs" || { echo "FAILED: no drain in the log: $logs"; exit 1; }
[[ "$status" == 0 ]] || { echo "FAILED: exit status $status after SIGTERM"; exit 1; }
echo "image_smoke: uid 10001, HEALTHCHECK healthy; SIGTERM: HEALTHCHECK unhealthy at once, drained and exited 0 after $(python3 -c "print('%.1f' % ($stopped - $stop_started))") s"
echo "image_smoke: passed"
