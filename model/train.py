"""Train hora-1.0 on generated series and export models/hora-1.0.onnx.

    nice -n 19 model/.venv/bin/python model/train.py            # the full recipe (config.json)
    nice -n 19 model/.venv/bin/python model/train.py --steps 300 --long-steps 50 # a quick smoke model
    python3 model/train.py --device cuda --producers 14      # the same recipe on a GPU machine

Two phases: `train` (contexts up to 1024 points), then `long_context`, which continues from the
first phase's weights with a fresh optimiser on contexts up to 4096 points, the longest the service
serves. `--from-phase1 CHECKPOINT` starts at the second phase from the first phase's saved weights
(`runs/phase1.pt`): the same run, an hour shorter.

Deterministic for a given config and step counts: batch i of a phase is generated from seed
(seed, phase key, i) in a separate process (so data generation overlaps the optimiser), and torch
runs with a fixed seed. `--producers N` spreads the batches over N processes (batch i from process
i mod N, read back in order), so the batches are the same for any N. `--device cuda` runs the same
steps on a GPU: deterministic there too, but float reductions differ from the CPU's, so its
weights are close to, not identical with, a CPU run's.
"""
from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import os
import sys
import time
from pathlib import Path

# Sleeping rather than spinning OpenMP workers: on 2 shared cores spinning threads burned about
# 7x the CPU time per step (measured: 1.16 s vs 0.16 s).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
# Deterministic cuBLAS (read when CUDA starts; unused on the CPU).
os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")

import numpy as np  # noqa: E402
import torch  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from generator import make_training_batch  # noqa: E402
from net import HoraNet, pinball  # noqa: E402


# Phase name -> the seed key of its batches (the first phase's batches keep their original seeds).
PHASE_KEYS = {"train": (), "long_context": (2,)}


def batch_for_step(cfg, phase, step):
    """Batch `step` of `phase` depends only on (seed, phase, step): reproducible whatever process
    makes it."""
    rng = np.random.default_rng([cfg["seed"], *PHASE_KEYS[phase], step])
    ph = cfg[phase]
    ctx_len = int(rng.choice(ph["ctx_lengths"], p=ph["ctx_probs"]))
    batch = cfg["train"]["batch"] if ctx_len <= 1024 else cfg["train"]["batch"] // 2
    return make_training_batch(rng, batch, ctx_len, cfg["model"]["horizon"])


def producer(cfg, phase, start, stop, stride, queue):
    os.nice(5)
    for step in range(start, stop, stride):
        queue.put(batch_for_step(cfg, phase, step))


def lr_at(step, total, tr):
    """Warmup, constant, then linear decay over the last `decay_frac` of the steps (WSD): shortening
    `total` while still in the constant phase leaves every earlier step's rate unchanged."""
    if step < tr["warmup"]:
        return tr["lr"] * (step + 1) / tr["warmup"]
    decay_start = (1 - tr["decay_frac"]) * total
    if step < decay_start:
        return tr["lr"]
    return tr["lr"] * max(0.02, (total - step) / (total - decay_start))


def train_phase(net, cfg, phase, total, log, budget_minutes=None, producers=1, device="cpu"):
    """Runs `total` steps of `phase` with a fresh AdamW; returns the step count used (a wall-time
    budget can only shorten it, by starting the decay early)."""
    tr, ph = cfg["train"], cfg[phase]
    opt = torch.optim.AdamW(net.parameters(), lr=ph["lr"], weight_decay=tr["weight_decay"])
    spawn = mp.get_context("spawn")
    queues = [spawn.Queue(maxsize=8) for _ in range(producers)]
    procs = [spawn.Process(target=producer, args=(cfg, phase, k, total, producers, queues[k]), daemon=True)
             for k in range(producers)]
    for proc in procs:
        proc.start()
    t0, ema, step = time.time(), None, 0
    step_time = None
    while step < total:
        t_step = time.time()
        ctx, mask, target = (torch.from_numpy(a).to(device) for a in queues[step % producers].get())
        for g in opt.param_groups:
            g["lr"] = lr_at(step, total, ph)
        out, mean, scale = net(ctx, mask)
        target_z = torch.clamp((target - mean) / scale, -tr["target_clip"], tr["target_clip"])
        loss = pinball(out, target_z)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), tr["grad_clip"])
        opt.step()
        ema = loss.item() if ema is None else 0.98 * ema + 0.02 * loss.item()
        if step % 50 == 0 or step == total - 1:
            line = f"{phase} step {step} loss {ema:.4f} ctx {ctx.shape[1]} elapsed {time.time() - t0:.0f}s"
            print(line, flush=True)
            log.write(line + "\n")
            log.flush()
        if step % 500 == 499:
            save(net, log.run_dir / "checkpoint.pt")
        dt = time.time() - t_step
        step_time = dt if step_time is None else 0.97 * step_time + 0.03 * dt
        shortened = math.ceil((step + 1) / (1 - ph["decay_frac"])) if ph["decay_frac"] < 1 else total
        if (budget_minutes and step > ph["warmup"] and shortened < total
                and time.time() - t0 + (shortened - step) * step_time > 60 * budget_minutes):
            total = shortened
            line = f"budget: decay starts now, {phase} stops at {total} steps (reproduce with the same count)"
            print(line, flush=True)
            log.write(line + "\n")
        step += 1
    for proc in procs:
        proc.terminate()
    print(f"{phase}: {total} steps in {time.time() - t0:.0f}s", flush=True)
    return total


def save(net, path):
    """Weights on the CPU, so a checkpoint made on a GPU loads anywhere."""
    torch.save({k: v.cpu() for k, v in net.state_dict().items()}, path)


class RunLog:
    def __init__(self, run_dir):
        self.run_dir = Path(run_dir)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.file = open(self.run_dir / "train.log", "a")

    def write(self, text):
        self.file.write(text)

    def flush(self):
        self.file.flush()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default=str(HERE / "config.json"))
    ap.add_argument("--steps", type=int, help="override the first phase's step count")
    ap.add_argument("--long-steps", type=int, help="override the long-context phase's step count")
    ap.add_argument("--from-phase1", help="weights the first phase produced (runs/phase1.pt): skip it")
    ap.add_argument("--out", default=str(HERE.parent / "models" / "hora-1.0.onnx"))
    ap.add_argument("--run-dir", default=str(HERE / "runs"))
    ap.add_argument("--no-export", action="store_true")
    ap.add_argument("--budget-minutes", type=float,
                    help="wall-time budget of the first phase: if its planned steps would not fit, start "
                         "the decay early and stop sooner; the step count used is printed and written to "
                         "the metadata, and --steps with it reproduces the run exactly")
    ap.add_argument("--device", default="cpu", help="torch device to train on (cpu, cuda)")
    ap.add_argument("--producers", type=int, default=1,
                    help="processes generating batches (the batches are the same for any count)")
    args = ap.parse_args()
    cfg = json.loads(Path(args.config).read_text())
    steps = args.steps or cfg["train"]["steps"]
    long_steps = cfg["long_context"]["steps"] if args.long_steps is None else args.long_steps
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(cfg["train"]["threads"])
    torch.use_deterministic_algorithms(True)

    net = HoraNet(**cfg["model"]).to(args.device)
    print(f"parameters: {sum(p.numel() for p in net.parameters()):,}", flush=True)
    log = RunLog(args.run_dir)
    if args.from_phase1:
        net.load_state_dict(torch.load(args.from_phase1, map_location=args.device))
        print(f"first phase: weights from {args.from_phase1} ({steps} steps)", flush=True)
    else:
        steps = train_phase(net, cfg, "train", steps, log, args.budget_minutes, args.producers, args.device)
        save(net, log.run_dir / "phase1.pt")
    long_steps = (train_phase(net, cfg, "long_context", long_steps, log, None, args.producers, args.device)
                  if long_steps else 0)
    save(net, log.run_dir / "checkpoint.pt")
    net.to("cpu")
    if not args.no_export:
        from export import export
        export(net, cfg, args.out, steps=steps, long_steps=long_steps)


if __name__ == "__main__":
    main()
