"""Train hora-1.0 on generated series and export models/hora-1.0.onnx.

    nice -n 19 model/.venv/bin/python model/train.py            # the full recipe (config.json)
    nice -n 19 model/.venv/bin/python model/train.py --steps 300 # a quick smoke model

Deterministic for a given config and step count: batch i is generated from seed (seed, i) in a
separate process (so data generation overlaps the optimiser), and torch runs with a fixed seed.
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

import numpy as np  # noqa: E402
import torch  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from generator import make_training_batch  # noqa: E402
from net import HoraNet, pinball  # noqa: E402


def batch_for_step(cfg, step):
    """Batch `step` depends only on (seed, step): reproducible whatever process makes it."""
    rng = np.random.default_rng([cfg["seed"], step])
    tr = cfg["train"]
    ctx_len = int(rng.choice(tr["ctx_lengths"], p=tr["ctx_probs"]))
    batch = tr["batch"] if ctx_len <= 1024 else tr["batch"] // 2
    return make_training_batch(rng, batch, ctx_len, cfg["model"]["horizon"])


def producer(cfg, start, stop, queue):
    os.nice(5)
    for step in range(start, stop):
        queue.put(batch_for_step(cfg, step))


def lr_at(step, total, tr):
    """Warmup, constant, then linear decay over the last `decay_frac` of the steps (WSD): shortening
    `total` while still in the constant phase leaves every earlier step's rate unchanged."""
    if step < tr["warmup"]:
        return tr["lr"] * (step + 1) / tr["warmup"]
    decay_start = (1 - tr["decay_frac"]) * total
    if step < decay_start:
        return tr["lr"]
    return tr["lr"] * max(0.02, (total - step) / (total - decay_start))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default=str(HERE / "config.json"))
    ap.add_argument("--steps", type=int, help="override the config's step count")
    ap.add_argument("--out", default=str(HERE.parent / "models" / "hora-1.0.onnx"))
    ap.add_argument("--run-dir", default=str(HERE / "runs"))
    ap.add_argument("--no-export", action="store_true")
    ap.add_argument("--budget-minutes", type=float,
                    help="wall-time budget: if the planned steps would not fit, start the decay early "
                         "and stop sooner; the step count used is printed and written to the metadata, "
                         "and --steps with it reproduces the run exactly")
    args = ap.parse_args()
    cfg = json.loads(Path(args.config).read_text())
    total = args.steps or cfg["train"]["steps"]
    tr = cfg["train"]
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(tr["threads"])
    torch.use_deterministic_algorithms(True)

    net = HoraNet(**cfg["model"])
    print(f"parameters: {sum(p.numel() for p in net.parameters()):,}", flush=True)
    opt = torch.optim.AdamW(net.parameters(), lr=tr["lr"], weight_decay=tr["weight_decay"])
    queue = mp.get_context("spawn").Queue(maxsize=8)
    proc = mp.get_context("spawn").Process(target=producer, args=(cfg, 0, total, queue), daemon=True)
    proc.start()

    run_dir = Path(args.run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    log = open(run_dir / "train.log", "a")
    t0, ema, step = time.time(), None, 0
    step_time = None
    while step < total:
        t_step = time.time()
        ctx, mask, target = (torch.from_numpy(a) for a in queue.get())
        for g in opt.param_groups:
            g["lr"] = lr_at(step, total, tr)
        out, mean, scale = net(ctx, mask)
        target_z = torch.clamp((target - mean) / scale, -tr["target_clip"], tr["target_clip"])
        loss = pinball(out, target_z)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), tr["grad_clip"])
        opt.step()
        ema = loss.item() if ema is None else 0.98 * ema + 0.02 * loss.item()
        if step % 50 == 0 or step == total - 1:
            line = f"step {step} loss {ema:.4f} ctx {ctx.shape[1]} elapsed {time.time() - t0:.0f}s"
            print(line, flush=True)
            log.write(line + "\n")
            log.flush()
        if step % 500 == 499:
            torch.save(net.state_dict(), run_dir / "checkpoint.pt")
        dt = time.time() - t_step
        step_time = dt if step_time is None else 0.97 * step_time + 0.03 * dt
        shortened = math.ceil((step + 1) / (1 - tr["decay_frac"]))
        if (args.budget_minutes and step > tr["warmup"] and shortened < total
                and time.time() - t0 + (shortened - step) * step_time > 60 * args.budget_minutes):
            total = shortened
            line = f"budget: decay starts now, training stops at {total} steps (reproduce with --steps {total})"
            print(line, flush=True)
            log.write(line + "\n")
        step += 1
    proc.terminate()
    torch.save(net.state_dict(), run_dir / "checkpoint.pt")
    print(f"trained {total} steps in {time.time() - t0:.0f}s", flush=True)
    if not args.no_export:
        from export import export
        export(net, cfg, args.out, steps=total)


if __name__ == "__main__":
    main()
