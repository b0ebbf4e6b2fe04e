"""Score ONNX files on held-out generated series: the check that decides between training recipes
without looking at M4 (the evaluation sets stay out of every choice made in training).

    model/.venv/bin/python model/validate.py models/hora-1.0.onnx [other.onnx ...]

Batches come from the training generator under a seed key no training phase uses, at each context
length the service serves (up to 4096 points), run as serving runs them (flip averaging on). Per
length: mean pinball loss over the 13 quantiles scaled by each series' mean absolute one-step change
in its context (scale-free, like MASE), and the empirical coverage of the 80 % and 90 % intervals.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from generator import make_training_batch  # noqa: E402

QUANTILES = np.array([0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99])
HELD_OUT_KEY = 9  # training phases use () and (2,)
LENGTHS = (256, 512, 1024, 2048, 4096)


def forecast(sess, ctx, mask):
    """Flip-averaged quantiles, monotone, as serving returns them."""
    run = lambda c: sess.run(["quantiles"], {"context": c.astype(np.float32), "mask": mask.astype(np.float32)})[0]
    q = 0.5 * (run(ctx) - run(-ctx)[:, :, ::-1])
    return np.sort(q, axis=-1)


def scored_batches(sess, seed, key, length, batches, batch, horizon):
    """Generated batches under seed key `key`, forecast: (context, mask, naive scale, target,
    quantiles) of each series that has a scale (constant contexts have none)."""
    for i in range(batches):
        rng = np.random.default_rng([seed, key, length, i])
        ctx, mask, target = make_training_batch(rng, batch, length, horizon)
        q = forecast(sess, ctx, mask)
        pair = mask[:, 1:] * mask[:, :-1]
        scale = (np.abs(np.diff(ctx, axis=1)) * pair).sum(axis=1) / np.maximum(pair.sum(axis=1), 1)
        keep = scale > 1e-8 * (np.abs(ctx).max(axis=1) + 1e-12)
        yield ctx[keep], mask[keep], scale[keep], target[keep], q[keep]


def pinball(target, q, scale):
    """[B] mean pinball loss over steps and the 13 quantiles, over each series' naive scale."""
    d = target[:, :, None] - q
    return np.maximum(QUANTILES * d, (QUANTILES - 1) * d).mean(axis=(1, 2)) / scale


def coverage(target, q):
    """[B] shares of targets inside the 80 % and 90 % intervals."""
    inside = lambda lo, hi: ((target >= q[:, :, lo]) & (target <= q[:, :, hi])).mean(axis=1)
    return inside(2, 10), inside(1, 11)


def score(sess, seed, length, batches, batch, horizon):
    losses, cov80, cov90 = [], [], []
    for _, _, scale, target, q in scored_batches(sess, seed, HELD_OUT_KEY, length, batches, batch, horizon):
        losses.append(pinball(target, q, scale))
        c80, c90 = coverage(target, q)
        cov80.append(c80)
        cov90.append(c90)
    cat = np.concatenate
    return float(np.mean(cat(losses))), 100 * float(np.mean(cat(cov80))), 100 * float(np.mean(cat(cov90)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("models", nargs="+")
    ap.add_argument("--batches", type=int, default=4)
    ap.add_argument("--batch", type=int, default=64)
    args = ap.parse_args()
    cfg = json.loads((HERE / "config.json").read_text())
    print("| model | " + " | ".join(f"ctx {n}: loss / cov80 / cov90" for n in LENGTHS) + " | mean loss |")
    print("|---|" + "---|" * (len(LENGTHS) + 1))
    for path in args.models:
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        sess = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
        rows = [score(sess, cfg["seed"], n, args.batches, args.batch, cfg["model"]["horizon"]) for n in LENGTHS]
        cells = " | ".join(f"{l:.4f} / {c8:.1f} / {c9:.1f}" for l, c8, c9 in rows)
        print(f"| {path} | {cells} | {np.mean([r[0] for r in rows]):.4f} |", flush=True)


if __name__ == "__main__":
    main()
