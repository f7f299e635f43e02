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
  entry point appears in that binary's --help output (`worker keygen --help` for keygen's).
* CURVE (docs/security.md): every worker that listens beyond loopback has --curve-cert and
  --authorized-keys, every coordinator a --curve-cert (FLEET_CURVE_CERT for the entry point);
  each such path is a secret the service mounts (compose: /run/secrets/TARGET of its own
  secrets, made by scripts/fleet-keys.sh under ./deploy/keys; k8s: a path under one of the
  container's volume mounts, Secrets from the kustomization's secretGenerator with the keys
  their volumes project); compose services with secrets set `user:`; the worker's --allow-l2
  covers its resp adapters; every NetworkPolicy selects pods that exist, on ports they serve.
* scripts/fleet-keys.sh, run with the built worker in a temporary directory: the files, their
  modes (secrets 0600), known_workers ("* key=" / "NAME:PORT key=" = the public keys),
  authorized_keys, idempotence (a second run changes nothing) and --force. `kubectl kustomize`
  renders deploy/k8s with keys made that way when deploy/k8s/keys does not exist.
Exit 0 when all hold, 1 with one line per problem otherwise.
"""
import argparse
import glob
import json
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile

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


def flag_values(cmd, flag):
    """Every value given to `flag` in an argv list (`--flag VALUE` or `--flag=VALUE`)."""
    out = []
    cmd = [str(c) for c in cmd]
    for i, t in enumerate(cmd):
        if t == flag and i + 1 < len(cmd):
            out.append(cmd[i + 1])
        elif t.startswith(flag + "="):
            out.append(t.split("=", 1)[1])
    return out


def listens_beyond_loopback(cmd):
    listen = flag_values(cmd, "--listen") or ["tcp://0.0.0.0:5555"]  # the worker's default
    return any(not re.match(r"ipc://|tcp://(127\.|\[::1\]|localhost[:/])", e) for e in listen)


def check_worker_curve(where, cmd):
    """A worker bound beyond loopback runs in protected mode: it needs its certificate and the
    coordinators' keys (or an explicit --insecure, which deployment files must not use)."""
    if "--insecure" in cmd:
        fail("%s: worker runs with --insecure (plaintext): deployment files must use CURVE" % where)
    elif listens_beyond_loopback(cmd):
        for f in ("--curve-cert", "--authorized-keys"):
            if not flag_values(cmd, f) and not (f == "--curve-cert" and "--ephemeral-key" in cmd):
                fail("%s: worker listens beyond loopback without %s (it would exit 2: protected mode)"
                     % (where, f))


def resp_endpoints(adapters):
    out = []
    for a in adapters:
        if isinstance(a, dict) and a.get("type") == "resp":
            out.append("%s:%s" % (a.get("host"), a.get("port")))
    return out


def allowed_l2(cmd):
    return {e for v in flag_values(cmd, "--allow-l2") for e in v.split(",") if e}


# What scripts/fleet-keys.sh OUT_DIR writes (no WORKER names: the shared worker pair).
FLEET_KEYS_FILES = {"coordinator.key", "coordinator.key_secret", "worker.key", "worker.key_secret",
                    "authorized_keys/coordinator.key", "known_workers"}


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
    n += check_compose_curve(doc, services)
    return n


def check_compose_curve(doc, services):
    """The keys: compose file secrets (read-only bind mounts at /run/secrets/TARGET) made by
    scripts/fleet-keys.sh deploy/keys."""
    top = doc.get("secrets") or {}
    for sname, sdef in top.items():
        f = (sdef or {}).get("file")
        if not f:
            fail("docker-compose.yml: secret %s is not file-based" % sname)
            continue
        rel = os.path.normpath(f)
        if not rel.startswith(os.path.join("deploy", "keys") + os.sep) or \
                os.path.relpath(rel, os.path.join("deploy", "keys")) not in FLEET_KEYS_FILES:
            fail("docker-compose.yml: secret %s file %s is not one scripts/fleet-keys.sh deploy/keys "
                 "makes (%s)" % (sname, f, ", ".join(sorted(FLEET_KEYS_FILES))))

    def mounted(svc):
        out = {}
        for sec in svc.get("secrets") or []:
            src, target = (sec, sec) if isinstance(sec, str) else (sec.get("source"), sec.get("target") or sec.get("source"))
            if src not in top:
                fail("docker-compose.yml: a service uses secret %r which is not defined" % src)
            out[target if target.startswith("/") else "/run/secrets/" + target] = src
        return out

    for name, svc in services.items():
        cmd = list(svc.get("entrypoint") or []) + list(svc.get("command") or [])
        env = svc.get("environment") or {}
        env = env if isinstance(env, dict) else dict(e.split("=", 1) for e in env if "=" in e)
        b, _ = command_flags(cmd)
        if b is None and svc.get("entrypoint"):
            b = binary_of(svc["entrypoint"][-1])
        paths = []
        if b == "worker":
            check_worker_curve("docker-compose.yml service %s" % name, cmd)
            paths = flag_values(cmd, "--curve-cert") + flag_values(cmd, "--authorized-keys")
            missing = set(resp_endpoints(json.loads(a) for a in flag_values(cmd, "--l2-adapter"))) - allowed_l2(cmd)
            if missing:
                fail("docker-compose.yml service %s: --allow-l2 lacks %s (its own resp adapter; a "
                     "coordinator naming it for a run would be refused)" % (name, ", ".join(sorted(missing))))
        elif b == "coordinator":
            cert = flag_values(cmd, "--curve-cert") + ([env["FLEET_CURVE_CERT"]] if env.get("FLEET_CURVE_CERT") else [])
            if not cert:
                fail("docker-compose.yml service %s: coordinator without --curve-cert / FLEET_CURVE_CERT" % name)
            known = flag_values(cmd, "--known-workers") + ([env["FLEET_KNOWN_WORKERS"]] if env.get("FLEET_KNOWN_WORKERS") else [])
            if not known:
                fail("docker-compose.yml service %s: coordinator without --known-workers / "
                     "FLEET_KNOWN_WORKERS (dns:worker has no hosts-file key= lines)" % name)
            paths = cert + known
        m = mounted(svc)
        for pth in paths:
            if pth not in m:
                fail("docker-compose.yml service %s: %s is not one of its secrets (%s)"
                     % (name, pth, ", ".join(sorted(m)) or "none"))
        if m and not svc.get("user"):
            fail("docker-compose.yml service %s: mounts secrets but sets no user: (file secrets keep "
                 "the host file's owner and mode 0600; the image's uid 10001 cannot read them)" % name)
    return 0


def labels_match(selector, labels):
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def check_k8s(src, helps, bin_dir):
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
        for c in (spec.get("initContainers") or []) + (spec.get("containers") or []):
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
    check_k8s_curve(kdir, by_kind, workloads, configmaps)
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
        # The secretGenerator reads deploy/k8s/keys (made by scripts/fleet-keys.sh, never
        # committed): without them, render a copy with keys made for the check.
        with tempfile.TemporaryDirectory(prefix="fleet-k8s-") as tmp:
            rdir = kdir
            if not os.path.isdir(os.path.join(kdir, "keys")):
                rdir = os.path.join(tmp, "k8s")
                shutil.copytree(kdir, rdir)
                r = run_fleet_keys(src, bin_dir, os.path.join(rdir, "keys"))
                if r.returncode != 0:
                    fail("scripts/fleet-keys.sh (keys to render deploy/k8s): %s; kustomize not run"
                         % (r.stderr.strip() or r.stdout.strip()))
                    rdir = None
            r = subprocess.run([kubectl, "kustomize", rdir], capture_output=True, text=True,
                               timeout=60) if rdir else None
            if r is None:
                pass
            elif r.returncode != 0:
                fail("kubectl kustomize deploy/k8s: %s" % r.stderr.strip())
            else:
                rendered = [d for d in yaml.safe_load_all(r.stdout) if d]
                check_rendered_secrets(rendered)
                print("kubectl kustomize deploy/k8s: ok (%d documents%s)" % (
                    len(rendered), "" if rdir == kdir else ", with keys made by scripts/fleet-keys.sh"))
    print("deploy/k8s: %d documents parsed (%s)" % (len(docs), ", ".join(
        "%d %s" % (len(v), k) for k, v in sorted(by_kind.items()))))
    return n


def pod_spec(tmpl):
    return tmpl.get("spec", {}) or {}


def under_mount(path, container):
    """(mount, relative path) of the container's volume mount holding `path`, or None."""
    best = None
    for m in container.get("volumeMounts", []) or []:
        mp = m["mountPath"].rstrip("/")
        if path == mp or path.startswith(mp + "/"):
            if best is None or len(mp) > len(best[0]["mountPath"].rstrip("/")):
                best = (m, os.path.relpath(path, mp))
    return best


def check_k8s_curve(kdir, by_kind, workloads, configmaps):
    """Keys from the kustomization's secretGenerator, projected into the pods that need them;
    NetworkPolicies that select real pods and ports."""
    # Secret name -> keys it holds (secretGenerator entries "KEY=PATH" or "PATH"; Secret docs).
    secrets = {}
    for fname, k in by_kind.get("Kustomization", []):
        for g in k.get("secretGenerator", []) or []:
            keys = set()
            for f in g.get("files", []) or []:
                key, _, path = f.partition("=") if "=" in f else (os.path.basename(f), "", f)
                keys.add(key)
                rel = os.path.normpath(path)
                if not rel.startswith("keys" + os.sep) or os.path.relpath(rel, "keys") not in FLEET_KEYS_FILES:
                    fail("%s: secretGenerator %s file %s is not one scripts/fleet-keys.sh deploy/k8s/keys "
                         "makes" % (fname, g.get("name"), path))
            secrets[g.get("name")] = keys
    for _, d in by_kind.get("Secret", []):
        secrets[d["metadata"]["name"]] = set((d.get("data") or {}).keys()) | set((d.get("stringData") or {}).keys())

    resp = set()
    for cm in configmaps.values():
        for key, text in (cm.get("data") or {}).items():
            if key.endswith(".json"):
                try:
                    resp |= set(resp_endpoints(json.loads(text).get("l2-adapter", []) or []))
                except (ValueError, AttributeError):
                    pass

    labels_of = []  # (kind/name, pod labels, pod spec)
    for fname, kind, wname, tmpl, _ in workloads:
        spec = pod_spec(tmpl)
        labels_of.append(("%s %s" % (kind, wname), tmpl.get("metadata", {}).get("labels", {}), spec))
        vols = {v["name"]: v for v in spec.get("volumes", []) or []}
        inits = spec.get("initContainers") or []
        fs_group = (spec.get("securityContext") or {}).get("fsGroup")
        for v in vols.values():
            sv = v.get("secret")
            if not sv:
                continue
            have = secrets.get(sv.get("secretName"))
            if have is None:
                fail("%s: %s %s mounts Secret %r which no secretGenerator or Secret defines"
                     % (fname, kind, wname, sv.get("secretName")))
                continue
            for it in sv.get("items", []) or []:
                if it.get("key") not in have:
                    fail("%s: %s %s projects key %r which Secret %s does not hold (%s)"
                         % (fname, kind, wname, it.get("key"), sv.get("secretName"), ", ".join(sorted(have))))

        def provides(vol, relpath):
            """Does this pod put `relpath` into volume `vol`: a Secret projecting it, or an init
            container that copies it there from a Secret that does?"""
            v = vols.get(vol, {})
            base = os.path.basename(relpath)
            if "secret" in v:
                items = v["secret"].get("items")
                return relpath in ([i.get("path") for i in items] if items else secrets.get(v["secret"].get("secretName"), ()))
            if "emptyDir" in v:
                for ic in inits:
                    text = " ".join(str(x) for x in (ic.get("command") or []) + (ic.get("args") or []))
                    mounts = {m["name"] for m in ic.get("volumeMounts", []) or []}
                    if vol in mounts and base in text and any(
                            provides(m, base) for m in mounts if "secret" in vols.get(m, {})):
                        return True
            return False

        for c in spec.get("containers", []) or []:
            cmd = list(c.get("command") or []) + list(c.get("args") or [])
            env = {e["name"]: e.get("value") for e in c.get("env", []) or []}
            b, _ = command_flags(cmd)
            if b is None and c.get("command"):
                b = binary_of(c["command"][-1])
            where = "%s: container %s" % (fname, c["name"])
            needs = []  # (what, path, secret?)
            if b == "worker":
                check_worker_curve(where, cmd)
                needs += [("--curve-cert", p, True) for p in flag_values(cmd, "--curve-cert")]
                needs += [("--authorized-keys", p, False) for p in flag_values(cmd, "--authorized-keys")]
                if flag_values(cmd, "--config-file") and resp - allowed_l2(cmd):
                    fail("%s: --allow-l2 lacks %s (the resp L2 of its engine.json)"
                         % (where, ", ".join(sorted(resp - allowed_l2(cmd)))))
            elif b == "coordinator":
                cert = flag_values(cmd, "--curve-cert") + ([env["FLEET_CURVE_CERT"]] if env.get("FLEET_CURVE_CERT") else [])
                known = flag_values(cmd, "--known-workers") + ([env["FLEET_KNOWN_WORKERS"]] if env.get("FLEET_KNOWN_WORKERS") else [])
                if not cert:
                    fail("%s: coordinator without --curve-cert / FLEET_CURVE_CERT" % where)
                if not known and str(env.get("FLEET_WORKERS", "")).startswith("dns:"):
                    fail("%s: coordinator with dns: workers but no --known-workers / FLEET_KNOWN_WORKERS" % where)
                needs += [("--curve-cert", p, True) for p in cert] + [("--known-workers", p, False) for p in known]
            for what, path, secret in needs:
                hit = under_mount(path, c)
                if hit is None:
                    fail("%s: %s %s is under none of its volume mounts" % (where, what, path))
                    continue
                m, rel = hit
                if not provides(m["name"], rel):
                    fail("%s: %s %s: nothing in the pod puts %s into volume %s (a Secret item, or an "
                         "init container copying it from one)" % (where, what, path, rel, m["name"]))
                if secret and "secret" in vols.get(m["name"], {}) and fs_group is not None:
                    fail("%s: %s %s is read straight from a Secret volume in a pod with fsGroup: kubelet "
                         "makes it 0440 and the binary refuses a group-readable secret" % (where, what, path))

    for fname, d in by_kind.get("NetworkPolicy", []):
        name = d["metadata"]["name"]
        spec = d.get("spec", {})
        sel = (spec.get("podSelector") or {}).get("matchLabels", {})
        targets = [w for w in labels_of if labels_match(sel, w[1])]
        if not targets:
            fail("%s: NetworkPolicy %s podSelector %s selects no workload's pods" % (fname, name, sel))
        for rule in spec.get("ingress", []) or []:
            for peer in rule.get("from", []) or []:
                ps = (peer.get("podSelector") or {}).get("matchLabels")
                if ps is not None and not any(labels_match(ps, w[1]) for w in labels_of):
                    fail("%s: NetworkPolicy %s allows pods %s, which no workload makes" % (fname, name, ps))
            for pt in rule.get("ports", []) or []:
                port = pt.get("port")
                served = set()
                for _, _, pspec in targets:
                    for c in pspec.get("containers", []) or []:
                        for cp in c.get("ports", []) or []:
                            served |= {cp.get("containerPort"), cp.get("name")}
                if port is not None and port not in served:
                    fail("%s: NetworkPolicy %s port %r is not a container port of the pods it selects"
                         % (fname, name, port))


def check_rendered_secrets(docs):
    """After kustomize: every Secret volume names a rendered Secret (hash suffix included)."""
    have = {d["metadata"]["name"] for d in docs if d.get("kind") == "Secret"}
    for d in docs:
        if d.get("kind") in ("Deployment", "StatefulSet", "Job"):
            for v in d["spec"]["template"]["spec"].get("volumes", []) or []:
                if "secret" in v and v["secret"].get("secretName") not in have:
                    fail("kubectl kustomize: %s %s mounts Secret %r, not rendered (have %s)"
                         % (d["kind"], d["metadata"]["name"], v["secret"].get("secretName"), sorted(have)))


def run_fleet_keys(src, bin_dir, out_dir, *args):
    env = dict(os.environ, FLEET_WORKER_BIN=os.path.join(bin_dir, "worker", "worker"))
    return subprocess.run(["bash", os.path.join(src, "scripts", "fleet-keys.sh"), *args, out_dir],
                          capture_output=True, text=True, env=env, timeout=60)


def public_key(path):
    with open(path) as f:
        m = re.search(r'^\s*public-key\s*=\s*"([^"]{40})"\s*$', f.read(), re.M)
    return m.group(1) if m else None


def check_fleet_keys(src, bin_dir):
    """scripts/fleet-keys.sh end to end with the built worker's keygen."""
    with tempfile.TemporaryDirectory(prefix="fleet-keys-") as tmp:
        out = os.path.join(tmp, "keys")
        r = run_fleet_keys(src, bin_dir, out)
        if r.returncode != 0:
            fail("scripts/fleet-keys.sh %s: exit %d: %s" % (out, r.returncode, (r.stderr or r.stdout).strip()))
            return
        for f in sorted(FLEET_KEYS_FILES):
            p = os.path.join(out, f)
            if not os.path.isfile(p):
                fail("scripts/fleet-keys.sh: %s was not written" % f)
                return
            mode = stat.S_IMODE(os.stat(p).st_mode)
            if f.endswith("_secret") and mode != 0o600:
                fail("scripts/fleet-keys.sh: %s has mode %04o, not 0600" % (f, mode))
            if not f.endswith("_secret") and mode != 0o644:
                fail("scripts/fleet-keys.sh: %s has mode %04o, not 0644" % (f, mode))
        for f in ("coordinator.key_secret", "worker.key_secret"):
            with open(os.path.join(out, f)) as fh:
                text = fh.read()
            if not re.search(r"^curve$", text, re.M) or not re.search(r'^\s*secret-key\s*=\s*"[^"]{40}"', text, re.M):
                fail("scripts/fleet-keys.sh: %s is not a CURVE secret certificate (ZPL curve/secret-key)" % f)
        wkey = public_key(os.path.join(out, "worker.key"))
        with open(os.path.join(out, "known_workers")) as f:
            lines = [l for l in f.read().splitlines() if l.strip() and not l.startswith("#")]
        if not wkey or lines != ["* key=" + wkey]:
            fail("scripts/fleet-keys.sh: known_workers is %r, not ['* key=<worker.key public-key>']" % lines)
        with open(os.path.join(out, "coordinator.key")) as a, open(os.path.join(out, "authorized_keys", "coordinator.key")) as b:
            if a.read().strip() != b.read().strip():
                fail("scripts/fleet-keys.sh: authorized_keys/coordinator.key differs from coordinator.key")
        before = {f: open(os.path.join(out, f)).read() for f in FLEET_KEYS_FILES}
        r = run_fleet_keys(src, bin_dir, out)
        after = {f: open(os.path.join(out, f)).read() for f in FLEET_KEYS_FILES}
        if r.returncode != 0 or before != after or "nothing changed" not in r.stdout:
            fail("scripts/fleet-keys.sh: a second run is not a no-op (exit %d, %s)"
                 % (r.returncode, "files changed" if before != after else r.stdout.strip()))
        r = run_fleet_keys(src, bin_dir, out, "--force")
        if r.returncode != 0 or public_key(os.path.join(out, "worker.key")) == wkey:
            fail("scripts/fleet-keys.sh --force: did not make new keys (exit %d)" % r.returncode)
        named = os.path.join(tmp, "named")
        env = dict(os.environ, FLEET_WORKER_BIN=os.path.join(bin_dir, "worker", "worker"))
        r = subprocess.run(["bash", os.path.join(src, "scripts", "fleet-keys.sh"), named, "gpu-01", "gpu-02:6000"],
                           capture_output=True, text=True, env=env, timeout=60)
        if r.returncode != 0:
            fail("scripts/fleet-keys.sh with worker names: exit %d: %s" % (r.returncode, r.stderr.strip()))
        else:
            with open(os.path.join(named, "known_workers")) as f:
                lines = [l for l in f.read().splitlines() if l.strip() and not l.startswith("#")]
            want = ["gpu-01:5555 key=%s" % public_key(os.path.join(named, "gpu-01.key")),
                    "gpu-02:6000 key=%s" % public_key(os.path.join(named, "gpu-02.key"))]
            if lines != want:
                fail("scripts/fleet-keys.sh with worker names: known_workers %r, want %r" % (lines, want))
        r = subprocess.run(["bash", os.path.join(src, "scripts", "fleet-keys.sh")], capture_output=True, text=True, timeout=30)
        if r.returncode != 2 or "usage:" not in r.stderr:
            fail("scripts/fleet-keys.sh without arguments: exit %d, no usage message" % r.returncode)
    print("scripts/fleet-keys.sh: ok (shared and named keys, modes, idempotent, --force)")


def check_slurm_test(src, helps):
    """scripts/slurm-test.sh (the batch script on a local Slurm cluster, run by hand and in CI,
    not by ctest): the flags it gives lct gen, the coordinator (after the trace, through sbatch)
    and the workers (FLEET_WORKER_ARGS) exist."""
    path = os.path.join(src, "scripts", "slurm-test.sh")
    with open(path) as f:
        text = f.read()
    flag = r"(?<![\w$-])(--[a-z0-9][a-z0-9-]*)"
    n = check_flags("slurm-test.sh lct gen", "lct gen", shell_command_flags(text, r'tools/lct/lct" gen'), helps)
    coord = []
    for m in re.finditer(r'"\$sbatch_script" "\$trace"([^\n]*)', text):
        coord += re.findall(flag, m.group(1))
    if "--shard" not in coord:
        fail("slurm-test.sh: no coordinator flags after the trace on its sbatch line (--shard key)")
    n += check_flags("slurm-test.sh coordinator", "coordinator", coord, helps)
    m = re.search(r'^export FLEET_WORKER_ARGS="([^"]*)"', text, re.M)
    if not m:
        fail("slurm-test.sh: no FLEET_WORKER_ARGS")
    else:
        n += check_flags("slurm-test.sh FLEET_WORKER_ARGS", "worker", re.findall(flag, m.group(1)), helps)
    return n


def check_shell(src, helps):
    n = 0
    sb = os.path.join(src, "deploy", "slurm", "fleet-replay.sbatch")
    with open(sb) as f:
        text = f.read()
    n += check_flags("fleet-replay.sbatch coordinator", "coordinator",
                     shell_command_flags(text, r'"\$bin/coordinator/coordinator"'), helps)
    wflags = shell_command_flags(text, r"\bworker_args\+?=\(") + shell_command_flags(text, r'exec "\$0"')
    n += check_flags("fleet-replay.sbatch worker", "worker", wflags, helps)
    n += check_flags("fleet-replay.sbatch keygen", "worker keygen",
                     shell_command_flags(text, r'"\$bin/worker/worker" keygen'), helps)
    if "scontrol show hostnames" not in text or "SLURM_JOB_NODELIST" not in text:
        fail("fleet-replay.sbatch: hosts file is not built from SLURM_JOB_NODELIST via scontrol")
    cflags = shell_command_flags(text, r'"\$bin/coordinator/coordinator"')
    for f, who in (("--curve-cert", wflags), ("--authorized-keys", wflags), ("--curve-cert", cflags)):
        if f not in who:
            fail("fleet-replay.sbatch: %s has no %s" % ("worker" if who is wflags else "coordinator", f))
    if "umask 077" not in text or not re.search(r'key=\$\(public_key ', text):
        fail("fleet-replay.sbatch: keys not made under umask 077, or hosts.txt lines without key=")
    # Workers are named after the Slurm node (hosts.txt's name), not the hostname (docs/deploying.md
    # § Tested: nodes that share a hostname were reported under one name).
    if '--name "$n"' not in text:
        fail('fleet-replay.sbatch: the worker is not named after its node (--name "$n")')
    n += check_slurm_test(src, helps)
    fk = os.path.join(src, "scripts", "fleet-keys.sh")
    with open(fk) as f:
        ktext = f.read()
    n += check_flags("scripts/fleet-keys.sh", "worker keygen",
                     shell_command_flags(ktext, r"args=\(keygen|args\+=\(--force"), helps)
    if "set -euo pipefail" not in ktext or "umask 077" not in ktext:
        fail("scripts/fleet-keys.sh: needs set -euo pipefail and umask 077")
    ep = os.path.join(src, "deploy", "docker", "fleet-coordinator.sh")
    with open(ep) as f:
        text = f.read()
    n += check_flags("fleet-coordinator.sh", "coordinator", shell_command_flags(text, r"^exec coordinator")
                     + shell_command_flags(text, r"\bcurve_args\+=\("), helps)
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
    for needed in ("debian:bookworm", "scripts/setup.sh", "cmake --preset image", "USER "):
        if needed not in text:
            fail("deploy/Dockerfile: %r missing" % needed)
    # Its build stage copies the sources room by room: every folder the top-level CMakeLists.txt
    # adds (outside the tests, benchmarks and fuzz targets the image does not build) must be
    # copied, or the image's configure fails on a room added since.
    with open(os.path.join(src, "CMakeLists.txt")) as f:
        rooms = re.findall(r"^add_subdirectory\((\S+?)\)", f.read(), re.M)
    copied = set(re.findall(r"^COPY\s+(\S+)\s", text, re.M))
    for room in rooms:
        top = room.split("/")[0]
        if top not in ("tests", "bench") and room not in copied and top not in copied:
            fail("deploy/Dockerfile: the build stage does not COPY %s/ (added by CMakeLists.txt)"
                 % top)
    # The image's preset: the tested default build's flags, without tests or benchmarks.
    with open(os.path.join(src, "CMakePresets.json")) as f:
        presets = {p["name"]: p for p in json.load(f)["configurePresets"]}
    image = presets.get("image", {})
    if image.get("inherits") != "default":
        fail("CMakePresets.json: the image preset does not inherit the default build's")
    for var in ("FLEET_BUILD_TESTS", "FLEET_BUILD_BENCH"):
        if image.get("cacheVariables", {}).get(var) != "OFF":
            fail("CMakePresets.json: the image preset builds with %s not OFF" % var)
    for m in re.finditer(r"^CMD\s+(\[.*\])", text, re.M):
        cmd = json.loads(m.group(1))
        if command_flags(cmd)[0] == "worker":
            check_worker_curve("deploy/Dockerfile CMD", cmd)
    for b in ("coordinator", "worker", "lct", "fleet-coordinator", "fleet-keys"):
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
        "worker keygen": help_text(os.path.join(a.bin, "worker", "worker"), "keygen"),
    }
    for b in ("coordinator", "worker"):
        if helps[b] is None:
            fail("%s/%s/%s is not built: cannot check flags" % (a.bin, b, b))
    n = check_compose(a.source, helps) + check_k8s(a.source, helps, a.bin) + check_shell(a.source, helps)
    check_fleet_keys(a.source, a.bin)
    sc = shutil.which("shellcheck")
    if sc:
        r = subprocess.run([sc, "-S", "warning", os.path.join(a.source, "scripts", "fleet-keys.sh"),
                            os.path.join(a.source, "deploy", "slurm", "fleet-replay.sbatch"),
                            os.path.join(a.source, "scripts", "slurm-test.sh"),
                            os.path.join(a.source, "deploy", "docker", "fleet-coordinator.sh")],
                           capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            fail("shellcheck -S warning: %s" % r.stdout.strip())
    print("flags checked against --help: %d" % n)
    for p in problems:
        print("FAIL: " + p)
    if problems:
        return 1
    print("deploy files: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
