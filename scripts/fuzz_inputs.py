#!/usr/bin/env python3
"""Mutation fuzzing of the files users hand to colo: scenarios, jobs files,
profiler exports, models, profiles and colod's config.

Each case takes a real input from the repository, applies 1-4 random edits
(a byte replaced, inserted or a few deleted; biased to YAML/CSV/JSON syntax
characters) and runs the command on it. Bad input must give exit status 1 or
2 with a message; anything else (an abort, a segfault: 134, 139, ...) is a
crash. The crashing inputs are kept under the output folder. Slow runs (a
mutated scenario may simulate for long) are cut off and not counted.

Usage: python3 scripts/fuzz_inputs.py [--seed S] [--per-case N] [--out DIR]
Run from the repository root after building (build/colo, build/colod).
Exit status: 0 if no crash, 1 otherwise.
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SYNTAX = b'0123456789-.:,"\n []{}#e'

# (input file, command; "@" is the mutated file, "@DIR" a folder holding it,
#  ok: exit statuses that are not crashes besides 0/1/2)
CASES = [
    ("examples/inference-vs-training/mps.yaml", ["build/colo", "sim", "@"], ()),
    ("examples/plan/jobs.yaml", ["build/colo", "plan", "@", "--gpus", "3"], ()),
    ("tests/profile/testdata/ncu_details.csv",
     ["build/colo", "profile", "import", "--name", "x", "--ncu", "@"], ()),
    ("tests/profile/testdata/ncu_raw.csv",
     ["build/colo", "profile", "import", "--name", "x", "--ncu", "@"], ()),
    ("tests/profile/testdata/smi_dmon.txt",
     ["build/colo", "profile", "import", "--name", "x", "--smi", "@"], ()),
    ("tests/profile/testdata/pmdlt_128x1024.dcgmi.txt",
     ["build/colo", "profile", "import", "--name", "x", "--dcgm", "@"], ()),
    ("examples/plan/model.json",
     ["build/colo", "plan", "examples/plan/jobs.yaml", "--gpus", "3",
      "--model", "@"], ()),
    ("examples/plan/profiles/bert-base-cased_batch8-inf.json",
     ["build/colo", "predict", "pair", "--profiles", "@DIR", "--model",
      "examples/plan/model.json", "bert-base-cased_batch8-inf",
      "bert-base-cased_batch8-inf"], ()),
    # colod serves until stopped: a config it accepts runs into the timeout
    # (124), which is fine.
    ("tests/runtime/testdata/ncu_driver_kernel.csv", None, ()),
    # One file of the KACE artifact, in a copy of the folder ("@KACE").
    ("data/kace/pairs_training.csv",
     ["build/colo", "predict", "eval", "--kace", "@KACE", "--repeats", "1",
      "--no-lowo"], ()),
    ("data/kace/baseline_labels.csv",
     ["build/colo", "predict", "eval", "--kace", "@KACE", "--repeats", "1",
      "--no-lowo"], ()),
    ("data/kace/baseline_steps_stage2.csv",
     ["build/colo", "predict", "eval", "--kace", "@KACE", "--repeats", "1",
      "--no-lowo"], ()),
    ("data/kace/workload_kernel_features.csv",
     ["build/colo", "predict", "eval", "--kace", "@KACE", "--repeats", "1",
      "--no-lowo"], ()),
    # An Orion kernel table, run by a 1 s scenario ("@SCENARIO").
    ("data/orion/resnet50_4_fwd", ["build/colo", "sim", "@SCENARIO"], ()),
]

SCENARIO = """name: fuzz
gpu: A100
mode: mps
seed: 1
duration_s: 1
jobs:
  - name: service
    workload: {{orion: {table}}}
    kind: inference
    class: high
    arrivals: {{poisson: 20}}
  - name: trainer
    workload: {{orion: {root}/data/orion/mobilenetv2_32_fb1}}
    kind: training
    class: best-effort
"""

COLOD_CONFIG = """socket: {sock}
socket_mode: "0600"
device: sim
gpu: A100
policy: priority
memory_limit_mib: 4096
grants:
  - {{uid: 0, class: high}}
  - {{cgroup: /system.slice/infer.service, class: high}}
  - {{token: "s3cret", class: high}}
kernels:
  - {{name: sgemm, duration_us: 250, sm_throughput: 0.9, dram_throughput: 0.2}}
kernels_from_ncu: [{ncu}]
model_base_us: 5
ring_spin_us: 0
sync_spin_us: 100
"""


def mutate(data, rng):
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.random()
        i = rng.randrange(len(b)) if b else 0
        if op < 0.4 and b:
            b[i] = rng.choice(SYNTAX + bytes([rng.randrange(256)]))
        elif op < 0.7:
            b[i:i] = bytes([rng.choice(SYNTAX)])
        elif b:
            del b[i:i + rng.randint(1, 8)]
    return bytes(b)


def run(cmd, timeout):
    try:
        return subprocess.run(cmd, cwd=ROOT, capture_output=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--per-case", type=int, default=60)
    ap.add_argument("--out", default=tempfile.mkdtemp(prefix="colo-fuzz-"))
    a = ap.parse_args()
    rng = random.Random(a.seed)
    work = tempfile.mkdtemp(prefix="colo-fuzz-work-")
    crashes = runs = cut = 0
    for src, cmd, extra_ok in CASES:
        data = open(os.path.join(ROOT, src), "rb").read()
        ext = os.path.splitext(src)[1]
        for _ in range(a.per_case):
            m = mutate(data, rng)
            if cmd is None:  # colod: its config names the mutated export
                ncu = os.path.join(work, "run.csv")
                open(ncu, "wb").write(m)
                cfg = os.path.join(work, "colod.yaml")
                cfg_text = COLOD_CONFIG.format(
                    sock=os.path.join(work, "colod.sock"), ncu=ncu)
                if rng.random() < 0.5:  # or mutate the config itself
                    cfg_text = mutate(cfg_text.encode(), rng).decode(
                        "utf-8", "replace")
                open(cfg, "w").write(cfg_text)
                c = ["timeout", "1", "build/colod", "--config", cfg]
                extra = (124,)
                kept = cfg
            elif "@KACE" in cmd:
                d = os.path.join(work, "kace")
                shutil.rmtree(d, ignore_errors=True)
                shutil.copytree(os.path.join(ROOT, "data/kace"), d)
                t = os.path.join(d, os.path.basename(src))
                open(t, "wb").write(m)
                c = [x.replace("@KACE", d) for x in cmd]
                extra, kept = extra_ok, t
            elif "@SCENARIO" in cmd:
                t = os.path.join(work, "table")
                open(t, "wb").write(m)
                y = os.path.join(work, "scenario.yaml")
                open(y, "w").write(SCENARIO.format(table=t, root=ROOT))
                c = [y if x == "@SCENARIO" else x for x in cmd]
                extra, kept = extra_ok, t
            elif "@DIR" in cmd:
                d = os.path.join(work, "profiles")
                shutil.rmtree(d, ignore_errors=True)
                os.makedirs(d)
                t = os.path.join(d, os.path.basename(src))
                open(t, "wb").write(m)
                c = [x.replace("@DIR", d) for x in cmd]
                extra, kept = extra_ok, t
            else:
                # Next to the original, so relative paths in it still work.
                t = os.path.join(os.path.dirname(os.path.join(ROOT, src)),
                                 ".fuzz_input" + ext)
                open(t, "wb").write(m)
                c = [t if x == "@" else x for x in cmd]
                extra, kept = extra_ok, t
            r = run(c, 8)
            runs += 1
            if r is None:
                cut += 1
            elif r.returncode not in (0, 1, 2) + tuple(extra):
                crashes += 1
                keep = os.path.join(a.out, f"crash_{crashes}{ext}")
                shutil.copy(kept, keep)
                print(f"CRASH exit {r.returncode}: {' '.join(c)}\n"
                      f"  input kept as {keep}\n"
                      f"  {r.stderr.decode(errors='replace')[-300:]}")
            if cmd is not None and "@" in cmd and os.path.exists(t):
                os.remove(t)
    shutil.rmtree(work, ignore_errors=True)
    print(f"{runs} runs, {crashes} crashes, {cut} cut off after 8 s "
          f"(seed {a.seed}); crashing inputs in {a.out}")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
