#!/usr/bin/env python3
"""CI check of every deployment file: docker-compose.yml, deploy/Dockerfile, deploy/k8s/*.yaml,
deploy/slurm/fleet-replay.sbatch and the container entry point agree with each other and with
the binaries.

  check_deploy_files.py --source REPO --bin BUILD_DIR

* `docker-compose -f docker-compose.yml config -q` passes.
* Every YAML under deploy/k8s parses; names referenced across files agree: the StatefulSet's
  serviceName is a headless Service; every Service selector matches a workload's pod labels;
  workload selectors match their own template labels; the coordinator's dns:NAME:PORT names a
  headless Service and one of its ports; every ConfigMap / PVC a pod mounts exists; named probe
  ports exist; the engine.json in the ConfigMap is JSON whose keys are worker flags and whose
  resp host is a Service; the kustomization lists files that exist.
* Every flag used for coordinator, worker and lct in compose, k8s, Slurm, the Dockerfile and the
  entry point appears in that binary's --help output.
Exit 0 when all hold, 1 with one line per problem otherwise.
"""
import argparse
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

import yaml

problems = []


def fail(msg):
    problems.append(msg)


def help_text(path, *sub):
    if not os.access(path, os.X_OK):
        return None
    r = subprocess.run([path, *sub, "--help"], capture_output=True, text=True, timeout=30)
    return r.stdout + r.stderr


def flags_in(tokens):
    out = []
    for t in tokens:
        t = str(t)
        if re.fullmatch(r"--[a-z0-9][a-z0-9-]*(=.*)?", t):
            out.append(t.split("=", 1)[0])
    return out


def check_flags(where, binary, flags, helps):
    h = helps.get(binary)
    if h is None:
        print("note: %s --help unavailable (not built); %d flag(s) from %s unchecked"
              % (binary, len(flags), where))
        return 0
    for f in flags:
        if not re.search(r"(?<![a-z0-9-])" + re.escape(f) + r"(?![a-z0-9-])", h):
            fail("%s: %s has no flag %s (not in its --help)" % (where, binary, f))
    return len(flags)


def binary_of(cmd0):
    base = os.path.basename(str(cmd0))
    return {"worker": "worker", "coordinator": "coordinator", "fleet-coordinator": "coordinator",
            "lct": "lct"}.get(base)


def command_flags(cmd):
    """(binary, flags) of an argv list: the first worker/coordinator word decides the binary."""
    for i, w in enumerate(cmd):
        b = binary_of(w)
        if b:
            return b, flags_in(cmd[i + 1:])
    return None, []


def shell_command_flags(text, start_pattern):
    """Flags of a shell command that starts at the line matching start_pattern, following
    backslash continuations."""
    lines = text.splitlines()
    out = []
    for i, line in enumerate(lines):
        if re.search(start_pattern, line):
            j = i
            chunk = line
            while chunk.rstrip().endswith("\\") and j + 1 < len(lines):
                j += 1
                chunk = chunk.rstrip()[:-1] + " " + lines[j]
            out += re.findall(r"(?<![\w$-])(--[a-z0-9][a-z0-9-]*)", chunk)
    return out


def check_compose(src, helps):
    path = os.path.join(src, "docker-compose.yml")
    dc = shutil.which("docker-compose")
    if not dc:
        fail("docker-compose is not installed (scripts/setup.sh installs it): cannot validate %s" % path)
    else:
        r = subprocess.run([dc, "-f", path, "config", "-q"], capture_output=True, text=True,
                           cwd=src, timeout=60)
        if r.returncode != 0:
            fail("docker-compose config -q: %s" % (r.stderr.strip() or r.stdout.strip()))
    with open(path) as f:
        doc = yaml.safe_load(f)
    services = doc.get("services", {})
    for name in ("redis", "worker", "coordinator"):
        if name not in services:
            fail("docker-compose.yml: no service %r" % name)
    n = 0
    for name, svc in services.items():
        cmd = list(svc.get("entrypoint") or []) + list(svc.get("command") or [])
        if isinstance(svc.get("command"), str):
            cmd = shlex.split(svc["command"])
        b, flags = command_flags(cmd)
        if b is None and svc.get("entrypoint"):
            b = binary_of(svc["entrypoint"][-1])
            flags = flags_in(svc.get("command") or [])
        if b:
            n += check_flags("docker-compose.yml service %s" % name, b, flags, helps)
        env = svc.get("environment") or {}
        if isinstance(env, dict):
            gen = env.get("FLEET_GEN_ARGS")
            if gen:
                gen = re.sub(r"\$\{[A-Z_]+:-(.*)\}", r"\1", gen)
                n += check_flags("docker-compose.yml FLEET_GEN_ARGS", "lct gen", flags_in(shlex.split(gen)), helps)
            workers = env.get("FLEET_WORKERS", "")
            if name == "coordinator" and not re.fullmatch(r"dns:worker:5555", str(workers)):
                fail("docker-compose.yml: coordinator FLEET_WORKERS %r is not dns:worker:5555" % workers)
    worker = services.get("worker", {})
    adapters = [worker.get("command", [])[i + 1] for i, t in enumerate(worker.get("command", []))
                if t == "--l2-adapter"]
    for a in adapters:
        try:
            j = json.loads(a)
            if j.get("type") == "resp" and j.get("host") not in services:
                fail("docker-compose.yml: worker resp L2 host %r is not a service" % j.get("host"))
        except ValueError as e:
            fail("docker-compose.yml: worker --l2-adapter is not JSON: %s" % e)
    if not adapters:
        fail("docker-compose.yml: worker has no --l2-adapter (the shared Redis L2)")
    return n


def labels_match(selector, labels):
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def check_k8s(src, helps):
    kdir = os.path.join(src, "deploy", "k8s")
    docs = []
    for path in sorted(glob.glob(os.path.join(kdir, "*.yaml")) + glob.glob(os.path.join(kdir, "*.yml"))):
        try:
            with open(path) as f:
                for d in yaml.safe_load_all(f):
                    if d:
                        docs.append((os.path.basename(path), d))
        except yaml.YAMLError as e:
            fail("%s: YAML does not parse: %s" % (path, e))
    by_kind = {}
    for fname, d in docs:
        if "kind" not in d or ("metadata" not in d and d["kind"] != "Kustomization"):
            fail("%s: a document without kind/metadata" % fname)
            continue
        by_kind.setdefault(d["kind"], []).append((fname, d))
    names = {k: {d["metadata"]["name"] for _, d in v if "metadata" in d} for k, v in by_kind.items()}
    services = {d["metadata"]["name"]: d for _, d in by_kind.get("Service", [])}
    headless = {n for n, d in services.items() if d.get("spec", {}).get("clusterIP") == "None"}

    workloads = []  # (fname, kind, name, pod template)
    for kind in ("Deployment", "StatefulSet", "Job", "Pod"):
        for fname, d in by_kind.get(kind, []):
            tmpl = d if kind == "Pod" else d.get("spec", {}).get("template", {})
            workloads.append((fname, kind, d["metadata"]["name"], tmpl, d))
            if kind in ("Deployment", "StatefulSet"):
                sel = d["spec"].get("selector", {}).get("matchLabels", {})
                if not labels_match(sel, tmpl.get("metadata", {}).get("labels", {})):
                    fail("%s: %s %s selector %s does not match its template labels"
                         % (fname, kind, d["metadata"]["name"], sel))
    for fname, d in by_kind.get("StatefulSet", []):
        sn = d["spec"].get("serviceName")
        if sn not in headless:
            fail("%s: StatefulSet %s serviceName %r is not a headless Service (have %s)"
                 % (fname, d["metadata"]["name"], sn, sorted(headless)))
    for sname, s in services.items():
        sel = s.get("spec", {}).get("selector", {})
        if not any(labels_match(sel, w[3].get("metadata", {}).get("labels", {}))
                   for w in workloads if w[1] in ("Deployment", "StatefulSet")):
            fail("Service %s selector %s matches no Deployment/StatefulSet pods" % (sname, sel))

    configmaps = {d["metadata"]["name"]: d for _, d in by_kind.get("ConfigMap", [])}
    pvcs = names.get("PersistentVolumeClaim", set())
    n = 0
    found_coordinator_dns = False
    for fname, kind, wname, tmpl, _ in workloads:
        spec = tmpl.get("spec", {})
        for v in spec.get("volumes", []) or []:
            if "configMap" in v and v["configMap"].get("name") not in configmaps:
                fail("%s: %s %s mounts ConfigMap %r which no file defines"
                     % (fname, kind, wname, v["configMap"].get("name")))
            if "persistentVolumeClaim" in v and v["persistentVolumeClaim"].get("claimName") not in pvcs:
                fail("%s: %s %s mounts PVC %r which no file defines"
                     % (fname, kind, wname, v["persistentVolumeClaim"].get("claimName")))
        vol_names = {v["name"] for v in spec.get("volumes", []) or []}
        for c in spec.get("containers", []):
            for m in c.get("volumeMounts", []) or []:
                if m["name"] not in vol_names:
                    fail("%s: container %s mounts undefined volume %r" % (fname, c["name"], m["name"]))
            port_names = {p.get("name") for p in c.get("ports", []) or []}
            for probe in ("readinessProbe", "livenessProbe"):
                p = c.get(probe, {}) or {}
                for k in ("tcpSocket", "httpGet"):
                    port = (p.get(k) or {}).get("port")
                    if isinstance(port, str) and port not in port_names:
                        fail("%s: %s %s port %r is not a named container port" % (fname, c["name"], probe, port))
            cmd = list(c.get("command") or []) + list(c.get("args") or [])
            b, flags = command_flags(cmd)
            if b is None and c.get("command"):
                b = binary_of(c["command"][-1])
                flags = flags_in(c.get("args") or [])
            if b:
                n += check_flags("%s container %s" % (fname, c["name"]), b, flags, helps)
            env = {e["name"]: e.get("value") for e in c.get("env", []) or []}
            w = env.get("FLEET_WORKERS")
            if w is not None:
                m = re.fullmatch(r"dns:([a-z0-9.-]+):(\d+)", w)
                if not m:
                    fail("%s: FLEET_WORKERS %r is not dns:NAME:PORT" % (fname, w))
                else:
                    found_coordinator_dns = True
                    svc = m.group(1).split(".")[0]
                    if svc not in headless:
                        fail("%s: coordinator dns name %r is not a headless Service (have %s)"
                             % (fname, svc, sorted(headless)))
                    else:
                        ports = {p.get("port") for p in services[svc]["spec"].get("ports", [])}
                        if int(m.group(2)) not in ports:
                            fail("%s: port %s not served by Service %s %s" % (fname, m.group(2), svc, ports))
                        sset = [d for _, d in by_kind.get("StatefulSet", []) if d["spec"].get("serviceName") == svc]
                        exp = env.get("FLEET_EXPECT_WORKERS")
                        if sset and exp is not None and int(exp) != int(sset[0]["spec"].get("replicas", 1)):
                            fail("%s: FLEET_EXPECT_WORKERS %s != StatefulSet %s replicas %s"
                                 % (fname, exp, sset[0]["metadata"]["name"], sset[0]["spec"].get("replicas")))
    if not found_coordinator_dns:
        fail("deploy/k8s: no coordinator container with FLEET_WORKERS=dns:NAME:PORT")
    for cname, cm in configmaps.items():
        for key, text in (cm.get("data") or {}).items():
            if not key.endswith(".json"):
                continue
            try:
                j = json.loads(text)
            except ValueError as e:
                fail("ConfigMap %s %s: not JSON: %s" % (cname, key, e))
                continue
            n += check_flags("ConfigMap %s %s" % (cname, key), "worker",
                             ["--" + k.replace("_", "-") for k in j], helps)
            for a in j.get("l2-adapter", []) or []:
                if a.get("type") == "resp" and a.get("host", "").split(".")[0] not in services:
                    fail("ConfigMap %s: resp host %r is not a Service" % (cname, a.get("host")))
    for fname, k in by_kind.get("Kustomization", []):
        for r in k.get("resources", []):
            if not os.path.exists(os.path.join(kdir, r)):
                fail("%s: resource %s does not exist" % (fname, r))
    kubectl = shutil.which("kubectl")
    if kubectl and by_kind.get("Kustomization"):
        r = subprocess.run([kubectl, "kustomize", kdir], capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            fail("kubectl kustomize deploy/k8s: %s" % r.stderr.strip())
        else:
            print("kubectl kustomize deploy/k8s: ok (%d documents)" % len(list(yaml.safe_load_all(r.stdout))))
    print("deploy/k8s: %d documents parsed (%s)" % (len(docs), ", ".join(
        "%d %s" % (len(v), k) for k, v in sorted(by_kind.items()))))
    return n


def check_shell(src, helps):
    n = 0
    sb = os.path.join(src, "deploy", "slurm", "fleet-replay.sbatch")
    with open(sb) as f:
        text = f.read()
    n += check_flags("fleet-replay.sbatch coordinator", "coordinator",
                     shell_command_flags(text, r'"\$bin/coordinator/coordinator"'), helps)
    n += check_flags("fleet-replay.sbatch worker", "worker",
                     shell_command_flags(text, r"^\s*worker_args\+?=\("), helps)
    if "scontrol show hostnames" not in text or "SLURM_JOB_NODELIST" not in text:
        fail("fleet-replay.sbatch: hosts file is not built from SLURM_JOB_NODELIST via scontrol")
    ep = os.path.join(src, "deploy", "docker", "fleet-coordinator.sh")
    with open(ep) as f:
        text = f.read()
    n += check_flags("fleet-coordinator.sh", "coordinator", shell_command_flags(text, r"^exec coordinator"), helps)
    m = re.search(r'gen_args="\$\{FLEET_GEN_ARGS:-(.*)\}"', text)
    if m:
        n += check_flags("fleet-coordinator.sh FLEET_GEN_ARGS", "lct gen", flags_in(shlex.split(m.group(1))), helps)
    df = os.path.join(src, "deploy", "Dockerfile")
    with open(df) as f:
        text = f.read()
    for m in re.finditer(r"^(?:CMD|ENTRYPOINT)\s+(\[.*\])", text, re.M):
        b, flags = command_flags(json.loads(m.group(1)))
        if b:
            n += check_flags("deploy/Dockerfile", b, flags, helps)
    for needed in ("debian:bookworm", "scripts/setup.sh", "-DFLEET_BUILD_TESTS=OFF", "-DFLEET_BUILD_BENCH=OFF", "USER "):
        if needed not in text:
            fail("deploy/Dockerfile: %r missing" % needed)
    for b in ("coordinator", "worker", "lct", "fleet-coordinator"):
        if "/usr/local/bin/" + b not in text:
            fail("deploy/Dockerfile: %s is not installed on PATH" % b)
    return n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    ap.add_argument("--bin", required=True)
    a = ap.parse_args()
    helps = {
        "coordinator": help_text(os.path.join(a.bin, "coordinator", "coordinator")),
        "worker": help_text(os.path.join(a.bin, "worker", "worker")),
        "lct gen": help_text(os.path.join(a.bin, "tools", "lct", "lct"), "gen"),
    }
    for b in ("coordinator", "worker"):
        if helps[b] is None:
            fail("%s/%s/%s is not built: cannot check flags" % (a.bin, b, b))
    n = check_compose(a.source, helps) + check_k8s(a.source, helps) + check_shell(a.source, helps)
    print("flags checked against --help: %d" % n)
    for p in problems:
        print("FAIL: " + p)
    if problems:
        return 1
    print("deploy files: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
