"""installer/kubernetes/*.yaml (installer/kubernetes/README.md), checked without a cluster:
every agent container's arguments are accepted by this build's runbox-agent (--print-config, which
parses them as a start would and starts nothing), plain HTTP stays on loopback while TLS listens
on the pod, the pods keep the security settings the README promises, the probes ask GET /health
on the TLS port, and the pool hosts' init container leaves a secret copy the agent accepts.

Run by ctest (test_kubernetes_manifests) with RUNBOX_BINARY_DIR set; needs python3-yaml."""

import os
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

import yaml

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MANIFESTS = os.path.join(SOURCE, "installer", "kubernetes")
AGENT = os.path.join(os.environ.get("RUNBOX_BINARY_DIR", os.path.join(SOURCE, "build")), "agent", "runbox-agent")


def pod_specs():
    """(file, workload name, pod spec) of every workload in the manifests."""
    found = []
    for name in sorted(os.listdir(MANIFESTS)):
        if not name.endswith(".yaml"):
            continue
        with open(os.path.join(MANIFESTS, name), encoding="utf-8") as f:
            for doc in yaml.safe_load_all(f):
                if doc and doc["kind"] in ("DaemonSet", "Deployment", "Job", "StatefulSet"):
                    found.append((name, doc["metadata"]["name"], doc["spec"]["template"]["spec"]))
    return found


def print_config(args):
    """runbox-agent --print-config ARGS: (exit status, {setting: value})."""
    run = subprocess.run([AGENT, "--print-config"] + args, capture_output=True, text=True,
                         env={"PATH": "/usr/bin:/bin"}, timeout=60, check=False)
    settings = {}
    for line in run.stdout.splitlines():
        if line.startswith("#") or "=" not in line:
            continue
        key, _, rest = line.partition("=")
        settings[key.strip()] = rest.split("  #")[0].strip()
    return run.returncode, settings, run.stderr


class KubernetesManifests(unittest.TestCase):
    def test_there_are_agents_to_check(self):
        self.assertGreaterEqual(len(pod_specs()), 2)  # the DaemonSet and the pool hosts' Job

    def test_every_agent_accepts_its_arguments(self):
        for file, workload, spec in pod_specs():
            for container in spec["containers"]:
                with self.subTest(file=file, workload=workload):
                    code, settings, err = print_config(container["args"])
                    self.assertEqual(code, 0, err)
                    self.assertEqual(settings["stateDir"], "/var/lib/runbox")
                    self.assertTrue(settings["listen"].startswith("127.0.0.1:"), settings["listen"])
                    self.assertEqual(settings["listenTls"], "0.0.0.0:4312")
                    self.assertEqual(settings["allowPlaintextRemote"], "false")

    def test_a_bad_argument_is_refused(self):
        # Positive control of the check above: the same parse refuses what is not a setting.
        code, _, err = print_config(["--state-dir", "/var/lib/runbox", "--listen-tls", "0.0.0.0:99999"])
        self.assertNotEqual(code, 0)
        self.assertIn("--listen-tls", err)

    def test_pods_keep_the_promised_security_settings(self):
        for file, workload, spec in pod_specs():
            with self.subTest(file=file, workload=workload):
                self.assertFalse(spec["automountServiceAccountToken"])
                self.assertTrue(spec["securityContext"]["runAsNonRoot"])
                self.assertNotEqual(spec["securityContext"]["runAsUser"], 0)
                for container in spec["containers"] + spec.get("initContainers", []):
                    ctx = container["securityContext"]
                    self.assertFalse(ctx["allowPrivilegeEscalation"])
                    self.assertTrue(ctx["readOnlyRootFilesystem"])
                    self.assertEqual(ctx["capabilities"]["drop"], ["ALL"])
                    self.assertNotIn("add", ctx["capabilities"])
                    self.assertNotIn("privileged", ctx)
                agent = spec["containers"][0]
                self.assertEqual(agent["securityContext"]["seccompProfile"], {"type": "Unconfined"})
                for probe in ("readinessProbe", "livenessProbe"):
                    if probe in agent:
                        get = agent[probe]["httpGet"]
                        self.assertEqual((get["path"], get["scheme"], get["port"]), ("/health", "HTTPS", "https"))
                ports = {p["name"]: p["containerPort"] for p in agent["ports"]}
                self.assertEqual(ports, {"https": 4312})

    def test_pool_hosts_get_a_secret_copy_the_agent_accepts(self):
        hosts = [(f, w, s) for f, w, s in pod_specs() if s.get("initContainers")]
        self.assertTrue(hosts)
        for _, _, spec in hosts:
            args = spec["containers"][0]["args"]
            secret = args[args.index("--pool-secret-file") + 1]
            command = spec["initContainers"][0]["command"]
            self.assertEqual(command[-1], secret)
            with tempfile.TemporaryDirectory() as tmp:
                # The secret volume as the kubelet leaves it: root's, group-readable (0440).
                source = os.path.join(tmp, "secret")
                with open(source, "w", encoding="ascii") as f:
                    f.write("ab" * 32 + "\n")
                os.chmod(source, 0o440)
                copy = os.path.join(tmp, "pool.secret")
                subprocess.run([shutil.which(command[0]) or command[0]] + command[1:-2] + [source, copy],
                               check=True, timeout=30)
                mode = stat.S_IMODE(os.stat(copy).st_mode)
                self.assertEqual(mode & 0o077, 0, oct(mode))  # what the agent demands of it
                self.assertNotEqual(stat.S_IMODE(os.stat(source).st_mode) & 0o077, 0)


if __name__ == "__main__":
    sys.exit(unittest.main(verbosity=2))
