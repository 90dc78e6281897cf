#!/usr/bin/env python3
"""Three `cmfpipe serve` instances behind HAProxy on 127.0.0.1 lose no request while they are
restarted one after another and reloaded (issue 30, point 5).

    rolling_restart.py --cli build/bin/cmfpipe [--source .] [--seconds-between 1]

It starts a stand-in upstream (tests/bench/serve/bench_upstream.py), three instances on free
ports (a prompts folder holding examples/prompty/chat.prompty, a pipeline that redacts e-mail
addresses, --drain-delay 2, --grace 5, --admin-token), and HAProxy in front of them (health
checks on /health every 200 ms, down after 2 failures, up after 2 successes; a request is retried
on another instance only when its connection could not be made, so no request reaches two
instances). Then clients send a steady load through HAProxy: the prompt route, the proxy route
and the proxy route streamed, each answer checked (its own request's text, a stream's length,
finish reason and `data: [DONE]`). Meanwhile:
  1. rolling restart: each instance in turn gets SIGTERM (a 2 s stream pinned to it is in flight),
     must exit 0 after its drain, is started again on the same port, and must be back in HAProxy's
     rotation before the next one is stopped;
  2. reload under load: instance a by SIGHUP and instance b by POST /admin/reload to a pipeline
     without processors, instance c by SIGHUP to a pipeline that does not load. a and b then pass
     an e-mail address through /v1/process; c logs the refusal and still redacts it.
It prints the counts ("sent N, ok N, errors 0, streams completed M") and fails on any error.
Exit 77 (ctest's SKIP_RETURN_CODE) with a "SKIPPED: ..." line when haproxy is not installed.
"""
import argparse
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

DRAIN_DELAY = 2
GRACE = 5
STREAM_DELTAS, DELTA_CHARS = 8, 200  # bench_upstream.py's default delta length
PINNED_DELTAS = 30  # one every 100 ms: 3 s, past the drain delay
TOKEN = "deploy-test-token"
NAMES = ("a", "b", "c")

REDACTING = """processors:
  - {name: redact_pii, kind: pii_redactor, hooks: [llm_input, llm_output], mode: enforce,
     capabilities: [append_labels]}
"""
PASSING = "processors: []\n"
BROKEN = "processors:\n  - {name: x, kind: no_such_kind, hooks: [llm_input]}\n"
MAIL = {"messages": [{"role": "user", "content": [{"content_type": "text",
                                                    "text": "Mail ada@example.com"}]}]}


def skip(reason):
    print("SKIPPED: deploy/haproxy: " + reason, flush=True)
    sys.exit(77)


def fail(message):
    raise AssertionError(message)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what, condition, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.02)
    fail("waited %g s for %s" % (seconds, what))


def request(port, method, path, body=None, headers=None, timeout=10):
    """(status, headers, body bytes) of one request on a connection of its own."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        data = None if body is None else json.dumps(body).encode()
        connection.request(method, path, body=data, headers=headers or {})
        answer = connection.getresponse()
        return answer.status, dict(answer.getheaders()), answer.read()
    finally:
        connection.close()


class Instance:
    """One `cmfpipe serve` on a fixed port, started again after each stop (a new log each time)."""

    def __init__(self, name, port, cli, scratch, upstream_port):
        self.name, self.port, self.cli, self.scratch = name, port, cli, scratch
        self.config = os.path.join(scratch, "pipeline-%s.yaml" % name)
        self.upstream_port = upstream_port
        self.starts = 0
        self.process = None
        self.log_path = None

    def start(self):
        self.starts += 1
        self.log_path = os.path.join(self.scratch, "%s-%d.log" % (self.name, self.starts))
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [self.cli, "serve", "--listen", "127.0.0.1:%d" % self.port,
                 "--prompts", os.path.join(self.scratch, "prompts"), "--config", self.config,
                 "--upstream", "openai=http://127.0.0.1:%d/v1" % self.upstream_port,
                 "--admin-token", TOKEN, "--drain-delay", str(DRAIN_DELAY),
                 "--grace", str(GRACE)],
                stdout=log, stderr=log)
        wait_for("%s to listen" % self.name, lambda: "listening on" in self.log()
                 or self.process.poll() is not None, 30)
        if self.process.poll() is not None:
            fail("%s exited at start: %s" % (self.name, self.log()))

    def log(self):
        with open(self.log_path, encoding="utf-8", errors="replace") as f:
            return f.read()

    def stop(self, seconds):
        """SIGTERM, then its exit status and the seconds it took."""
        started = self.signalled_at = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        try:
            status = self.process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            fail("%s did not exit within %g s of SIGTERM" % (self.name, seconds))
        return status, time.monotonic() - started

    def resident(self):
        """The process's resident memory, as /proc says it (e.g. "14 MB")."""
        with open("/proc/%d/status" % self.process.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return "%d MB" % round(int(line.split()[1]) / 1024)
        return "?"

    def processed_text(self):
        """The e-mail message's text after this instance's llm_input processors."""
        status, _, body = request(self.port, "POST", "/v1/process?hook=llm_input", MAIL)
        if status != 200:
            fail("%s /v1/process: %d %s" % (self.name, status, body[:300]))
        return json.loads(body)["messages"][0]["content"][0]["text"]


class HAProxy:
    def __init__(self, scratch, port, instances, retries):
        self.port = port
        self.socket_path = os.path.join(scratch, "haproxy.sock")
        self.config = os.path.join(scratch, "haproxy.cfg")
        servers = "".join("    server %s 127.0.0.1:%d check\n" % (i.name, i.port)
                          for i in instances)
        pins = "".join("    use-server %s if { req.hdr(x-pin) -m str %s }\n" % (i.name, i.name)
                       for i in instances)
        with open(self.config, "w") as f:
            f.write(HAPROXY_CONFIG.format(socket=self.socket_path, port=port, servers=servers,
                                          pins=pins, retries=RETRIES if retries else NO_RETRIES))
        self.log_path = os.path.join(scratch, "haproxy.log")
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(["haproxy", "-db", "-f", self.config],
                                            stdout=log, stderr=log)

    def stats(self):
        """HAProxy's `show stat` rows of the backend, by server name (and BACKEND)."""
        try:
            with socket.socket(socket.AF_UNIX) as s:
                s.settimeout(2)
                s.connect(self.socket_path)
                s.sendall(b"show stat\n")
                data = b""
                while chunk := s.recv(65536):
                    data += chunk
        except OSError:
            return {}
        lines = data.decode().splitlines()
        if not lines or not lines[0].startswith("# "):
            return {}
        fields = lines[0][2:].split(",")
        rows = [dict(zip(fields, line.split(","))) for line in lines[1:] if line]
        return {r["svname"]: r for r in rows if r["pxname"] == "cmfpipe"}

    def status(self):
        """{server name: HAProxy's status (UP, DOWN, UP 1/2...)}."""
        return {name: row["status"] for name, row in self.stats().items() if name in NAMES}

    def wait_status(self, name, wanted, seconds):
        started = time.monotonic()
        wait_for("HAProxy to see %s %s" % (name, wanted),
                 lambda: self.status().get(name) == wanted, seconds)
        return time.monotonic() - started


# Retries: `retry-on conn-failure` only, so a request is sent again, to another instance
# (`option redispatch 1`), only when no connection to the first could be made: none that reached
# an instance is ever sent twice. The drain makes the rest safe: an instance that got SIGTERM
# answers /health 503 at once and goes on serving for its drain delay (2 s), well over the
# 2 x 200 ms HAProxy needs to take it out.
RETRIES = """    retries 3
    retry-on conn-failure
    option redispatch 1"""
NO_RETRIES = "    retries 0"
HAPROXY_CONFIG = """global
    maxconn 2000
    stats socket {socket} mode 600 level admin

defaults
    mode http
    timeout connect 1s
    timeout client 30s
    timeout server 30s
    timeout http-keep-alive 10s
    timeout check 1s
{retries}

frontend deploy_test
    bind 127.0.0.1:{port}
    default_backend cmfpipe

backend cmfpipe
    balance roundrobin
    option httpchk GET /health
    http-check expect status 200
    default-server inter 200ms fastinter 100ms downinter 200ms fall 2 rise 2
    http-response set-header x-served-by %s
{pins}{servers}"""


class Load:
    """Clients sending requests through HAProxy back to back until stopped; every answer checked."""

    KINDS = ("prompt", "proxy", "stream")

    def __init__(self, port, clients):
        self.port = port
        self.lock = threading.Lock()
        self.sent = self.ok = self.streams = 0
        self.by_kind = {k: 0 for k in self.KINDS}
        self.by_server = {}
        self.served = []  # (when sent, the instance that answered) of each request answered well
        self.errors = []
        self.running = threading.Event()
        self.running.set()
        self.threads = [threading.Thread(target=self.client, args=(n,)) for n in range(clients)]

    def start(self):
        for t in self.threads:
            t.start()

    def stop(self):
        self.running.clear()
        for t in self.threads:
            t.join()

    def served_by(self, name, since, until):
        """How many requests sent between `since` and `until` instance `name` answered."""
        with self.lock:
            return sum(1 for at, server in self.served if server == name and since <= at < until)

    def client(self, number):
        connection = None
        count = 0
        while self.running.is_set():
            kind = self.KINDS[(number + count) % len(self.KINDS)]
            tag = "client%d-request%d" % (number, count)
            count += 1
            with self.lock:
                self.sent += 1
                self.by_kind[kind] += 1
            sent_at = time.monotonic()
            try:
                if connection is None:
                    connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=15)
                server, problem = self.one(connection, kind, tag)
            except (OSError, http.client.HTTPException, ValueError) as e:
                server, problem = None, "%s: %r" % (kind, e)
                connection.close()
                connection = None
            with self.lock:
                if problem:
                    self.errors.append("%s %s" % (tag, problem))
                else:
                    self.ok += 1
                    self.streams += kind == "stream"
                    self.by_server[server] = self.by_server.get(server, 0) + 1
                    self.served.append((sent_at, server))
            time.sleep(0.01)  # a steady load, not a flood: the 2 cores are shared
        if connection is not None:
            connection.close()

    def one(self, connection, kind, tag):
        """(the instance that answered, None) or (.., what was wrong with the answer)."""
        if kind == "prompt":
            path, body = "/v1/prompts/chat?to=openai", {"question": tag}
        else:
            model = "paced-prose-%d-40" % STREAM_DELTAS if kind == "stream" else "echo"
            path = "/v1/chat/completions"
            body = {"model": model, "messages": [{"role": "user", "content": tag}]}
            if kind == "stream":
                body["stream"] = True
        connection.request("POST", path, body=json.dumps(body).encode(),
                           headers={"Content-Type": "application/json"})
        answer = connection.getresponse()
        data = answer.read()
        server = answer.getheader("x-served-by")
        if answer.status != 200:
            return server, "%s: status %d %s" % (kind, answer.status, data[:200])
        if kind == "prompt":
            messages = json.loads(data)["messages"]
            if messages[-1]["content"] != tag:
                return server, "prompt: another request's answer: %s" % data[:200]
        elif kind == "proxy":
            text = json.loads(data)["choices"][0]["message"]["content"]
            if text != "echo: " + tag:
                return server, "proxy: another request's answer: %r" % text
        else:
            return server, stream_problem(data)
        return server, None


def stream_problem(data, deltas=STREAM_DELTAS):
    """None when a streamed answer is whole: its deltas, one finish, and `data: [DONE]` last."""
    events = [e for e in data.decode().split("\n\n") if e.strip()]
    if not events or events[-1] != "data: [DONE]":
        return "stream: does not end with data: [DONE] (%d events)" % len(events)
    text, finishes = "", []
    for event in events[:-1]:
        if not event.startswith("data: "):
            return "stream: not an event: %r" % event[:100]
        choice = json.loads(event[6:])["choices"][0]
        text += choice["delta"].get("content") or ""
        if choice["finish_reason"]:
            finishes.append(choice["finish_reason"])
    if finishes != ["stop"] or len(text) != deltas * DELTA_CHARS:
        return "stream: finishes %s, %d characters" % (finishes, len(text))
    return None


def pinned_stream(port, name, outcome):
    """A 3 s stream HAProxy sends to instance `name`: in flight when its listener closes."""
    body = {"model": "paced-prose-%d-100" % PINNED_DELTAS, "stream": True,
            "messages": [{"role": "user", "content": "pinned"}]}
    try:
        status, headers, data = request(port, "POST", "/v1/chat/completions", body,
                                        {"x-pin": name}, timeout=15)
        problem = stream_problem(data, PINNED_DELTAS) if status == 200 else "status %d" % status
        outcome.append((headers.get("x-served-by"), problem))
    except (OSError, http.client.HTTPException) as e:
        outcome.append((None, repr(e)))


def run(cli, source, scratch, between, retries, clients):
    began = time.monotonic()
    os.makedirs(os.path.join(scratch, "prompts"))
    shutil.copy(os.path.join(source, "examples", "prompty", "chat.prompty"),
                os.path.join(scratch, "prompts"))
    upstream = subprocess.Popen(
        [sys.executable, os.path.join(source, "tests", "bench", "serve", "bench_upstream.py")],
        stdout=subprocess.PIPE, text=True)
    processes = [upstream]
    instances, haproxy, load = [], None, None
    try:
        upstream_port = int(upstream.stdout.readline().split()[-1])
        for name in NAMES:
            instance = Instance(name, free_port(), cli, scratch, upstream_port)
            with open(instance.config, "w") as f:
                f.write(REDACTING)
            instance.start()
            instances.append(instance)
        haproxy = HAProxy(scratch, free_port(), instances, retries)
        processes.append(haproxy.process)
        for i in instances:
            haproxy.wait_status(i.name, "UP", 10)
        port = haproxy.port
        for i in instances:
            if i.processed_text() != "Mail [REDACTED:EMAIL]":
                fail("%s does not redact at start" % i.name)

        load = Load(port, clients)
        load.start()
        time.sleep(between)

        print("rolling restart (drain delay %d s, grace %d s):" % (DRAIN_DELAY, GRACE))
        for i in instances:
            pinned = []
            stream = threading.Thread(target=pinned_stream, args=(port, i.name, pinned))
            stream.start()
            time.sleep(0.3)  # the stream is under way on i
            exited = []
            stopper = threading.Thread(
                target=lambda: exited.append(i.stop(DRAIN_DELAY + GRACE + 5)))
            stopper.start()
            down = haproxy.wait_status(i.name, "DOWN", max(DRAIN_DELAY, 3))
            stopper.join()
            status, took = exited[0]
            if status != 0:
                fail("%s exited %d after SIGTERM: %s" % (i.name, status, i.log()[-2000:]))
            stream.join()
            if pinned != [(i.name, None)]:
                fail("the stream pinned to %s while it drained: %s" % (i.name, pinned))
            restarted = time.monotonic()
            i.start()
            up = haproxy.wait_status(i.name, "UP", 10)
            late = load.served_by(i.name, i.signalled_at, restarted)
            print("  %s: out of HAProxy's rotation %.2f s after SIGTERM, %d requests sent to it "
                  "after the signal served; exited 0 after %.2f s (a 3 s stream in flight "
                  "completed); back in rotation %.2f s after its restart" %
                  (i.name, down, late, took, up), flush=True)
            time.sleep(between)

        print("reload under load:")
        a, b, c = instances
        for i, text in ((a, PASSING), (b, PASSING), (c, BROKEN)):
            with open(i.config, "w") as f:
                f.write(text)
        a.process.send_signal(signal.SIGHUP)
        status, _, body = request(b.port, "POST", "/admin/reload", None,
                                  {"Authorization": "Bearer " + TOKEN})
        if status != 200 or json.loads(body) != {"status": "reloaded", "generation": 2}:
            fail("b's /admin/reload: %d %s" % (status, body[:300]))
        c.process.send_signal(signal.SIGHUP)
        wait_for("a to log its reload", lambda: "cmfpipe serve: reloaded, serving generation 2"
                 in a.log(), 10)
        refusal = "cmfpipe serve: reload refused, still serving generation 1: "
        wait_for("c to log the refusal", lambda: refusal in c.log(), 10)
        refused = next(line for line in c.log().splitlines() if refusal in line)
        print("  a (SIGHUP): reloaded, generation 2; b (POST /admin/reload): 200, generation 2")
        print("  c (SIGHUP, broken config): %s" % refused)
        texts = {i.name: i.processed_text() for i in instances}
        wanted = {"a": "Mail ada@example.com", "b": "Mail ada@example.com",
                  "c": "Mail [REDACTED:EMAIL]"}
        if texts != wanted:
            fail("after the reload /v1/process says %s, wanted %s" % (texts, wanted))
        print("  /v1/process of 'Mail ada@example.com': a %r, b %r, c %r (c kept the old "
              "pipeline)" % (texts["a"], texts["b"], texts["c"]))
        if haproxy.status() != {"a": "UP", "b": "UP", "c": "UP"}:
            fail("after the reload HAProxy sees %s" % haproxy.status())
        time.sleep(between)
        load.stop()
        loaded = load
        load = None

        print("sent %d, ok %d, errors %d, streams completed %d" %
              (loaded.sent, loaded.ok, len(loaded.errors), loaded.streams))
        print("  by route: %s; by instance: %s" % (
            ", ".join("%s %d" % kv for kv in loaded.by_kind.items()),
            ", ".join("%s %d" % kv for kv in sorted(loaded.by_server.items()))))
        for error in loaded.errors[:20]:
            print("  error: " + error)
        backend = haproxy.stats()["BACKEND"]
        print("  HAProxy: retries %s, redispatches %s, 5xx answers %s" %
              (backend["wretr"], backend["wredis"], backend["hrsp_5xx"]))
        if loaded.errors or loaded.ok != loaded.sent:
            fail("%d of %d requests failed" % (len(loaded.errors), loaded.sent))
        if any(loaded.by_server.get(n, 0) == 0 for n in NAMES):
            fail("an instance served nothing: %s" % loaded.by_server)
        print("  resident memory after the load: %s" % ", ".join(
            "%s %s" % (i.name, i.resident()) for i in instances))
        for i in instances:  # all three at once, as a scale-down to zero would
            i.process.send_signal(signal.SIGTERM)
        for i in instances:
            status = i.process.wait(timeout=DRAIN_DELAY + GRACE + 5)
            if status != 0:
                fail("%s exited %d at the end" % (i.name, status))
        print("whole test: %.1f s" % (time.monotonic() - began))
    finally:
        if load is not None:
            load.stop()
        for i in instances:
            if i.process and i.process.poll() is None:
                i.process.kill()
                i.process.wait()
        for p in processes:
            if p.poll() is None:
                p.kill()
                p.wait()
        if upstream.stdout:
            upstream.stdout.close()


def main():
    global DRAIN_DELAY
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True, help="the cmfpipe binary")
    parser.add_argument("--source", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    parser.add_argument("--seconds-between", type=float, default=1.0,
                        help="load alone before, between and after the restarts")
    parser.add_argument("--drain-delay", type=int, default=DRAIN_DELAY,
                        help="the instances' --drain-delay (0 shows what the drain is for)")
    parser.add_argument("--clients", type=int, default=6, help="clients sending at once")
    parser.add_argument("--no-retries", action="store_true",
                        help="HAProxy without retries: the drain alone must lose nothing")
    args = parser.parse_args()
    DRAIN_DELAY = args.drain_delay
    if shutil.which("haproxy") is None:
        skip("haproxy is not installed (Debian: apt-get install haproxy, or "
             "scripts/install-deps.sh --deploy); the rolling restart was NOT tested")
    scratch = tempfile.mkdtemp(prefix="deploy-")
    try:
        run(os.path.abspath(args.cli), os.path.abspath(args.source), scratch,
            args.seconds_between, not args.no_retries, args.clients)
    except AssertionError as e:
        print("FAILED: %s" % e, flush=True)
        for name in sorted(os.listdir(scratch)):
            if name.endswith(".log"):
                with open(os.path.join(scratch, name), errors="replace") as f:
                    print("--- %s (last lines)\n%s" % (name, "".join(f.readlines()[-15:])))
        return 1
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
