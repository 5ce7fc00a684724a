"""A real Slurm cluster on loopback for colo's end-to-end test.

munged, slurmctld and three slurmd (each a fake node with fake GPUs: character
devices 195:N listed in gres.conf), all started as root from one temporary
directory and stopped by PID. Facts this relies on:
../shared/notes/slurm-on-one-machine.md (Debian 12, Slurm 22.05).
"""
import os
import re
import shutil
import socket
import subprocess
import time

SLURM_BINARIES = ["munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "sinfo"]


def missing_binaries():
    return [b for b in SLURM_BINARIES if shutil.which(b) is None and
            not os.path.exists("/usr/sbin/" + b)]


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def poll(predicate, timeout_s, what, step_s=0.1):
    """Calls predicate until it returns something true; bounded in time."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step_s)
    raise TimeoutError("gave up after %.0f s waiting for %s" % (timeout_s, what))


class Cluster:
    def __init__(self, root, nodes, gpus_per_node, shards_per_gpu, plugstack, env,
                 colo=None):
        self.root = root
        self.nodes = nodes
        self.gpus_per_node = gpus_per_node
        self.shards_per_gpu = shards_per_gpu
        self.plugstack = plugstack
        self.env = dict(env)
        self.conf = os.path.join(root, "slurm.conf")
        self.env["SLURM_CONF"] = self.conf
        self.procs = []  # (name, Popen), in start order
        # With the `colo` binary: gres.conf from `colo gres-conf --typed`
        # (each GPU its own type g<i>), so that a job can name its GPU.
        self.colo = colo

    def write_config(self, job_submit_lua):
        r = self.root
        for d in ["state", "spool", "log", "munge"]:
            os.makedirs(os.path.join(r, d), exist_ok=True)
        munge_dir = os.path.join(r, "munge")
        shutil.chown(munge_dir, "munge", "munge")
        os.chmod(munge_dir, 0o755)
        self.munge_socket = os.path.join(munge_dir, "munge.sock")
        ctld_port = free_port()
        lines = [
            "ClusterName=colotest",
            "SlurmctldHost=localhost(127.0.0.1)",
            "SlurmctldPort=%d" % ctld_port,
            "SlurmUser=root", "SlurmdUser=root",
            "AuthType=auth/munge", "CredType=cred/munge",
            "AuthInfo=socket=%s" % self.munge_socket,
            "StateSaveLocation=%s/state" % r,
            "SlurmdSpoolDir=%s/spool/%%n" % r,
            "SlurmctldPidFile=%s/slurmctld.pid" % r,
            "SlurmdPidFile=%s/slurmd-%%n.pid" % r,
            "SlurmctldLogFile=%s/log/slurmctld.log" % r,
            "SlurmdLogFile=%s/log/slurmd-%%n.log" % r,
            "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            "MpiDefault=none", "SwitchType=switch/none", "MailProg=/bin/true",
            "SelectType=select/cons_tres", "SelectTypeParameters=CR_Core",
            "SlurmdParameters=config_overrides", "ReturnToService=2",
            "SchedulerParameters=sched_interval=1,batch_sched_delay=0",
            "GresTypes=gpu,shard", "JobSubmitPlugins=lua",
            "PlugStackConfig=%s" % os.path.join(r, "plugstack.conf"),
            "SlurmctldDebug=info", "SlurmdDebug=info",
        ]
        gres = []
        for i, n in enumerate(self.nodes):
            gdir = os.path.join(r, "gpus", n)
            os.makedirs(gdir, exist_ok=True)
            os.makedirs(os.path.join(r, "spool", n), exist_ok=True)
            for g in range(self.gpus_per_node):
                dev = os.path.join(gdir, "nvidia%d" % g)
                if not os.path.exists(dev):
                    os.mknod(dev, 0o666 | 0o020000, os.makedev(195, i * 16 + g))
            node_gres = "gpu:%d,shard:%d" % (self.gpus_per_node,
                                             self.gpus_per_node * self.shards_per_gpu)
            if self.colo:
                node_gres = self._typed_gres(n, gdir, gres)
            else:
                for g in range(self.gpus_per_node):
                    dev = os.path.join(gdir, "nvidia%d" % g)
                    gres.append("NodeName=%s AutoDetect=off Name=gpu File=%s" % (n, dev))
                    gres.append("NodeName=%s AutoDetect=off Name=shard Count=%d File=%s" %
                                (n, self.shards_per_gpu, dev))
            lines.append(
                "NodeName=%s NodeAddr=127.0.0.1 Port=%d CPUs=16 RealMemory=16000 "
                "Gres=%s State=UNKNOWN" % (n, free_port(), node_gres))
        lines.append("PartitionName=main Nodes=%s Default=YES MaxTime=INFINITE State=UP" %
                     ",".join(self.nodes))
        with open(self.conf, "w") as f:
            f.write("\n".join(lines) + "\n")
        with open(os.path.join(r, "gres.conf"), "w") as f:
            f.write("\n".join(gres) + "\n")
        with open(os.path.join(r, "plugstack.conf"), "w") as f:
            f.write(self.plugstack + "\n")
        shutil.copy(job_submit_lua, os.path.join(r, "job_submit.lua"))

    def _typed_gres(self, node, gdir, gres):
        """Appends `colo gres-conf --typed` lines for `node` (its device files
        in `gdir`, not /dev) to `gres`; returns slurm.conf's Gres= value."""
        out = subprocess.run(
            [self.colo, "gres-conf", "--typed", "--node", node, "--fake",
             str(self.gpus_per_node), "--shards-per-gpu", str(self.shards_per_gpu)],
            capture_output=True, text=True, check=True).stdout
        node_gres = None
        for line in out.splitlines():
            m = re.search(r" Gres=(\S+)$", line)
            if line.startswith("#"):
                node_gres = m.group(1) if m else node_gres
            elif line != "AutoDetect=off":
                gres.append(line.replace("File=/dev/", "File=%s/" % gdir))
        if "AutoDetect=off" not in gres:
            gres.insert(0, "AutoDetect=off")
        if node_gres is None:
            raise AssertionError("colo gres-conf wrote no Gres= hint: " + out)
        return node_gres

    def _start(self, name, argv, user=None):
        log = open(os.path.join(self.root, "log", name + ".out"), "w")
        extra = {"user": user, "group": user, "extra_groups": []} if user else {}
        p = subprocess.Popen(argv, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, **extra)
        self.procs.append((name, p))
        return p

    def start(self, ctld_env):
        r = self.root
        self._start("munged", [
            "munged", "-F", "--socket=" + self.munge_socket,
            "--pid-file=%s/munge/munged.pid" % r, "--log-file=%s/munge/munged.log" % r,
            "--seed-file=%s/munge/munged.seed" % r], user="munge")
        poll(lambda: os.path.exists(self.munge_socket), 10, "munged's socket")
        env = dict(self.env)
        env.update(ctld_env)
        saved = self.env
        self.env = env
        self._start("slurmctld", ["slurmctld", "-D", "-c", "-f", self.conf])
        self.env = saved
        for n in self.nodes:
            self._start("slurmd-" + n, ["slurmd", "-D", "-N", n, "-f", self.conf])
        poll(self._all_idle, 30, "every node idle (sinfo)", 0.2)

    def _all_idle(self):
        out = self.run(["sinfo", "-h", "-N", "-o", "%N %t"], check=False).stdout
        states = dict(l.split() for l in out.splitlines() if l.strip())
        return len(states) == len(self.nodes) and all(
            s == "idle" for s in states.values())

    def run(self, argv, check=True, **kw):
        return subprocess.run(argv, env=self.env, capture_output=True, text=True,
                              check=check, timeout=60, **kw)

    def stop(self):
        """Stops what start() started, by PID, newest first (bounded)."""
        for name, p in reversed(self.procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait(timeout=5)
        self.procs = []
