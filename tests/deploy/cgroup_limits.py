#!/usr/bin/env python3
"""`cmfpipe serve` in a cgroup with a CPU quota and a memory limit, as a container runtime or
Kubernetes makes one: its defaults (the pool's threads, the buffer budget) come from the cgroup,
not from the machine (core/src/host/machine_share.hpp).

    cgroup_limits.py --cli build/bin/cmfpipe

Makes a cgroup of its own (v2 where /sys/fs/cgroup is cgroup2, else v1's cpu and memory
hierarchies) with a quota of half a core and a limit of 256 MiB, starts the server in it and reads
the lines where it says what it sized itself from and whether its idle I/O threads poll (not under
a quota by default); then the same with --threads and --max-buffered given (they win), with a
fixed --busy-poll (the operator's), then pinned to one CPU with taskset and no quota (it polls).
Each server answers /health.
The cgroups are removed at the end. Exit 77 (ctest's SKIP_RETURN_CODE) with a "SKIPPED: ..." line
where cgroups cannot be made (not root, no writable cgroup file system).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request

QUOTA, PERIOD, LIMIT = 50000, 100000, 256 << 20
# Polling an idle loop would spend the quota the requests need: under one, --busy-poll auto does not.
QUOTA_NO_POLL = "cmfpipe serve: idle I/O threads sleep at once (--busy-poll auto: a cgroup CPU quota)"


def skip(why):
    print("SKIPPED: " + why)
    sys.exit(77)


def own_cgroup(controller):
    """This process's cgroup path in the v1 hierarchy of `controller` ('' for v2)."""
    with open("/proc/self/cgroup") as lines:
        for line in lines:
            number, names, path = line.rstrip("\n").split(":", 2)
            if (controller == "" and number == "0" and names == "") or controller in names.split(","):
                return path
    return None


class Cgroups:
    """One new cgroup per hierarchy used (v2: one; v1: cpu and memory), under this process's own."""

    def __init__(self, name):
        self.folders = []
        if os.path.exists("/sys/fs/cgroup/cgroup.controllers"):
            parent = "/sys/fs/cgroup" + (own_cgroup("") or "/")
            try:
                with open(os.path.join(parent, "cgroup.subtree_control"), "w") as control:
                    control.write("+cpu +memory")
            except OSError as error:
                skip("cannot delegate cpu and memory to cgroups under %s: %s" % (parent, error))
            self.cpu = self.memory = self.make(os.path.join(parent, name))
            self.write(self.cpu, "cpu.max", "%d %d" % (QUOTA, PERIOD))
            self.write(self.memory, "memory.max", str(LIMIT))
        else:
            cpu_root, memory_root = "/sys/fs/cgroup/cpu", "/sys/fs/cgroup/memory"
            if not (os.path.isdir(cpu_root) and os.path.isdir(memory_root)):
                skip("no cgroup v2 and no v1 cpu and memory hierarchies under /sys/fs/cgroup")
            self.cpu = self.make(cpu_root + (own_cgroup("cpu") or "/").rstrip("/") + "/" + name)
            self.memory = self.make(memory_root + (own_cgroup("memory") or "/").rstrip("/") + "/" + name)
            self.write(self.cpu, "cpu.cfs_period_us", str(PERIOD))
            self.write(self.cpu, "cpu.cfs_quota_us", str(QUOTA))
            self.write(self.memory, "memory.limit_in_bytes", str(LIMIT))

    def make(self, folder):
        try:
            os.makedirs(folder, exist_ok=True)
        except OSError as error:
            skip("cannot make the cgroup %s: %s" % (folder, error))
        self.folders.append(folder)
        return folder

    @staticmethod
    def write(folder, name, value):
        try:
            with open(os.path.join(folder, name), "w") as file:
                file.write(value)
        except OSError as error:
            skip("cannot write %s/%s: %s" % (folder, name, error))

    def enter_command(self):
        """A shell prefix that moves the shell into the cgroups, then execs the rest."""
        folders = sorted(set([self.cpu, self.memory]))
        return "".join("echo $$ > '%s/cgroup.procs' && " % f for f in folders)

    def remove(self):
        for folder in reversed(self.folders):
            for _ in range(50):  # a cgroup is removable once its last process has been reaped
                try:
                    os.rmdir(folder)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.1)


def serve_and_read_sizing(command, failures, expected, polling):
    """Starts the server with `command` (a shell command), checks its sizing and polling lines
    and /health."""
    server = subprocess.Popen(["sh", "-c", command], stderr=subprocess.PIPE, text=True)
    try:
        lines = []
        deadline = time.time() + 20
        port = None
        while time.time() < deadline and port is None:
            line = server.stderr.readline()
            if not line:
                break
            lines.append(line.rstrip("\n"))
            found = re.match(r"listening on http://127\.0\.0\.1:([0-9]+)", line)
            if found:
                port = int(found.group(1))
        # A line ending in "..." is a prefix: the rest depends on the machine.
        for start, wanted in (("cmfpipe serve: a pool of", expected),
                              ("cmfpipe serve: idle I/O threads", polling)):
            found = [l for l in lines if l.startswith(start)]
            matches = len(found) == 1 and (found[0].startswith(wanted[:-3]) if wanted.endswith("...")
                                           else found[0] == wanted)
            if not matches:
                failures.append("%s\n  wanted: %s\n  got:    %s" % (command, wanted, lines))
        if port is None:
            failures.append("%s: never listened: %s" % (command, lines))
            return
        with urllib.request.urlopen("http://127.0.0.1:%d/health" % port, timeout=5) as answer:
            if answer.status != 200:
                failures.append("%s: /health answered %d" % (command, answer.status))
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    args = parser.parse_args()
    if os.geteuid() != 0:
        skip("making cgroups needs root")
    # exec all the way down: the server is the process Popen started, and terminate() reaches it.
    serve = "exec '%s' serve --listen 127.0.0.1:0 --no-pipeline --max-body 1048576 --drain-delay 0" % args.cli
    cgroups = Cgroups("cmfpipe-test-%d" % os.getpid())
    failures = []
    try:
        cores = os.cpu_count() or 1
        if cores >= 2:  # half a core narrows only a machine of more than one
            serve_and_read_sizing(
                cgroups.enter_command() + serve, failures,
                "cmfpipe serve: a pool of 1 thread (the cgroup CPU quota of 0.50 cores), a buffer "
                "budget of 32 MiB (an eighth of the cgroup memory limit, 256 MiB)", QUOTA_NO_POLL)
        serve_and_read_sizing(
            cgroups.enter_command() + serve + " --threads 3 --max-buffered 20000000", failures,
            "cmfpipe serve: a pool of 3 threads (--threads), a buffer budget of 19 MiB "
            "(--max-buffered)", QUOTA_NO_POLL)
        serve_and_read_sizing(
            cgroups.enter_command() + serve + " --busy-poll 50", failures, "cmfpipe serve: a pool of ...",
            "cmfpipe serve: idle I/O threads poll 50 us before they sleep (--busy-poll 50)")
        if cores >= 2 and shutil.which("taskset"):
            serve_and_read_sizing(
                serve.replace("exec ", "exec taskset -c 0 ", 1), failures,
                "cmfpipe serve: a pool of 1 thread (the 1 CPU it may run on), a buffer budget of ...",
                "cmfpipe serve: idle I/O threads poll up to 200 us while gaps are short and a CPU is "
                "spare (--busy-poll auto)")
    finally:
        cgroups.remove()
    if failures:
        print("FAILED:\n" + "\n".join(failures))
        return 1
    print("cgroup limits: the pool and the buffer budget sized from the cgroup (%s)" %
          ", ".join(cgroups.folders))
    return 0


if __name__ == "__main__":
    sys.exit(main())
