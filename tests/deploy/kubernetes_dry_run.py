#!/usr/bin/env python3
"""deploy/kubernetes/ through `kubectl apply --dry-run=client`, and the figures the manifests must
agree on (issue 30, point 4).

    kubernetes_dry_run.py [--source .]

Client dry run still asks an API server which kinds it serves (discovery) and whether each
object exists. There is no cluster on a test machine, so a stand-in on 127.0.0.1 answers just
that, the way a Kubernetes 1.23+ API server does: the groups and resources of the kinds the
manifests use (v1 ConfigMap and Service, apps/v1 Deployment, autoscaling/v2
HorizontalPodAutoscaler, policy/v1 PodDisruptionBudget) and 404 for every object. A kubeconfig
of its own points kubectl at it, never at a cluster the machine may know. kubectl parses every
document, maps each kind to its resource and prints the objects it would create (-o json); schema
validation needs the server's OpenAPI document, which only a real cluster has
(--validate=false). Then the objects are checked against one another: 3 replicas, readiness on
/ready and liveness on /health, terminationGracePeriodSeconds over preStop + --drain-delay +
--grace, the mounts where --prompts and --config point, every ConfigMap named exists, the
Service, PodDisruptionBudget and autoscaler select the Deployment's pods, Prometheus scraping.
Exit 77 (ctest's SKIP_RETURN_CODE) with a "SKIPPED: ..." line when kubectl is not installed.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# What discovery says: group/version -> [(resource, kind, namespaced)].
SERVED = {
    "v1": [("configmaps", "ConfigMap", True), ("services", "Service", True),
           ("namespaces", "Namespace", False)],
    "apps/v1": [("deployments", "Deployment", True)],
    "autoscaling/v2": [("horizontalpodautoscalers", "HorizontalPodAutoscaler", True)],
    "policy/v1": [("poddisruptionbudgets", "PodDisruptionBudget", True)],
}


def resource_list(group_version):
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version,
            "resources": [{"name": name, "singularName": kind.lower(), "namespaced": namespaced,
                           "kind": kind, "verbs": ["create", "delete", "get", "list", "patch",
                                                   "update", "watch"]}
                          for name, kind, namespaced in SERVED[group_version]]}


def discovery(path):
    """The discovery document at `path`, or None."""
    if path == "/api":
        return {"kind": "APIVersions", "versions": ["v1"],
                "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0",
                                                "serverAddress": "127.0.0.1"}]}
    if path == "/apis":
        groups = []
        for group_version in SERVED:
            if "/" in group_version:
                group, version = group_version.split("/")
                entry = {"groupVersion": group_version, "version": version}
                groups.append({"name": group, "versions": [entry], "preferredVersion": entry})
        return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}
    if path == "/api/v1":
        return resource_list("v1")
    if path.startswith("/apis/") and path[6:] in SERVED:
        return resource_list(path[6:])
    return None


class StandIn(BaseHTTPRequestHandler):
    def do_GET(self):
        path = self.path.split("?")[0]
        document = discovery(path)
        if document is None:  # an object: none exists
            status, document = 404, {"kind": "Status", "apiVersion": "v1", "status": "Failure",
                                     "reason": "NotFound", "code": 404,
                                     "message": "%s not found" % path}
        else:
            status = 200
        data = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


KUBECONFIG = """apiVersion: v1
kind: Config
clusters: [{name: stand-in, cluster: {server: "http://127.0.0.1:%d"}}]
users: [{name: stand-in, user: {token: none}}]
contexts: [{name: stand-in, context: {cluster: stand-in, user: stand-in, namespace: default}}]
current-context: stand-in
"""


def dry_run(manifests):
    """The objects `kubectl apply --dry-run=client -o json` would create, and what it printed."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), StandIn)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    scratch = tempfile.mkdtemp(prefix="kubectl-")
    try:
        config = os.path.join(scratch, "kubeconfig")
        with open(config, "w") as f:
            f.write(KUBECONFIG % server.server_address[1])
        env = dict(os.environ, KUBECONFIG=config, HOME=scratch)
        run = subprocess.run(["kubectl", "apply", "--dry-run=client", "--validate=false",
                              "-f", manifests, "-o", "json"],
                             env=env, capture_output=True, text=True, timeout=60,
                             stdin=subprocess.DEVNULL)
        names = subprocess.run(["kubectl", "apply", "--dry-run=client", "--validate=false",
                                "-f", manifests], env=env, capture_output=True, text=True,
                               timeout=60, stdin=subprocess.DEVNULL)
    finally:
        server.shutdown()
        shutil.rmtree(scratch, ignore_errors=True)
    if run.returncode != 0 or names.returncode != 0:
        raise AssertionError("kubectl apply --dry-run=client failed:\n%s%s" %
                             (run.stderr, names.stderr))
    printed = json.loads(run.stdout)
    objects = printed["items"] if printed.get("kind") == "List" else [printed]
    return objects, names.stdout


def flag(args, name):
    """The value of --name=VALUE (or --name VALUE) in a container's args."""
    for i, arg in enumerate(args):
        if arg.startswith("--%s=" % name):
            return arg.split("=", 1)[1]
        if arg == "--" + name:
            return args[i + 1]
    raise AssertionError("the container's args have no --%s" % name)


def check(objects):
    """What the manifests must agree on; the first disagreement raises AssertionError."""
    by_kind = {}
    for o in objects:
        by_kind.setdefault(o["kind"], []).append(o)
    wanted = {"ConfigMap": 2, "Deployment": 1, "Service": 1, "HorizontalPodAutoscaler": 1,
              "PodDisruptionBudget": 1}
    counts = {k: len(v) for k, v in by_kind.items()}
    assert counts == wanted, "objects %s, wanted %s" % (counts, wanted)
    deployment = by_kind["Deployment"][0]
    spec = deployment["spec"]
    pod = spec["template"]
    labels = pod["metadata"]["labels"]
    container = pod["spec"]["containers"][0]
    args = container["args"]
    assert spec["replicas"] == 3, "replicas %s" % spec["replicas"]
    assert spec["strategy"]["rollingUpdate"]["maxUnavailable"] == 0
    assert container["readinessProbe"]["httpGet"]["path"] == "/ready"
    assert container["livenessProbe"]["httpGet"]["path"] == "/health"
    live = container["livenessProbe"]
    drain, grace = int(flag(args, "drain-delay")), int(flag(args, "grace"))
    assert live["periodSeconds"] * live["failureThreshold"] > drain, \
        "the liveness probe gives up within the drain delay"
    pre_stop = container["lifecycle"]["preStop"]["exec"]["command"]
    assert pre_stop[0] == "sleep", "preStop %s" % pre_stop
    stop_time = int(pre_stop[1]) + drain + grace
    termination = pod["spec"]["terminationGracePeriodSeconds"]
    assert termination > stop_time, \
        "terminationGracePeriodSeconds %d, preStop + drain + grace %d" % (termination, stop_time)
    assert flag(args, "listen") == "0.0.0.0:8080"
    assert container["ports"][0]["containerPort"] == 8080
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    volumes = {v["name"]: v for v in pod["spec"]["volumes"]}
    assert flag(args, "prompts") == mounts["prompts"]
    assert os.path.dirname(flag(args, "config")) == mounts["pipeline"]
    config_maps = {c["metadata"]["name"]: c for c in by_kind["ConfigMap"]}
    for name in ("pipeline", "prompts"):
        assert volumes[name]["configMap"]["name"] in config_maps, "no ConfigMap for " + name
    pipeline_map = config_maps[volumes["pipeline"]["configMap"]["name"]]
    assert os.path.basename(flag(args, "config")) in pipeline_map["data"]
    prompts_map = config_maps[volumes["prompts"]["configMap"]["name"]]
    assert all(k.endswith(".prompty") for k in prompts_map["data"])
    requests = container["resources"]["requests"]
    assert "cpu" in requests and "memory" in requests, "resource requests %s" % requests
    assert int(flag(args, "max-buffered")) < 128 * 1024 * 1024 + 1
    assert container["resources"]["limits"]["memory"].endswith("Mi")
    assert int(container["resources"]["limits"]["memory"][:-2]) * 1024 * 1024 > \
        int(flag(args, "max-buffered")), "the memory limit under --max-buffered"
    annotations = pod["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert annotations["prometheus.io/port"] == "8080"
    assert annotations["prometheus.io/path"] == "/metrics"
    selector = spec["selector"]["matchLabels"]
    assert all(labels.get(k) == v for k, v in selector.items())
    service = by_kind["Service"][0]
    assert all(labels.get(k) == v for k, v in service["spec"]["selector"].items())
    assert service["spec"]["ports"][0]["targetPort"] == "http"
    pdb = by_kind["PodDisruptionBudget"][0]
    assert pdb["spec"]["selector"]["matchLabels"] == selector
    assert pdb["spec"]["maxUnavailable"] == 1
    hpa = by_kind["HorizontalPodAutoscaler"][0]
    assert hpa["spec"]["scaleTargetRef"]["name"] == deployment["metadata"]["name"]
    assert hpa["spec"]["minReplicas"] == spec["replicas"]
    assert hpa["spec"]["metrics"][0]["resource"]["name"] == "cpu"
    return "drain: preStop %ss + drain %ds + grace %ds = %ds < terminationGracePeriodSeconds " \
        "%ds" % (pre_stop[1], drain, grace, stop_time, termination)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--source", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    args = parser.parse_args()
    if shutil.which("kubectl") is None:
        print("SKIPPED: deploy/kubernetes: kubectl is not installed (Debian: apt-get install "
              "kubernetes-client, or scripts/install-deps.sh --deploy); the manifests were NOT "
              "validated", flush=True)
        return 77
    manifests = os.path.join(os.path.abspath(args.source), "deploy", "kubernetes")
    try:
        objects, printed = dry_run(manifests)
        print(printed, end="")
        print(check(objects))
    except AssertionError as e:
        print("FAILED: %s" % e, flush=True)
        return 1
    version = subprocess.run(["kubectl", "version", "--client"], capture_output=True, text=True)
    print("%d objects, kubectl %s" % (len(objects), version.stdout.splitlines()[0]
                                      if version.stdout else "?"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
