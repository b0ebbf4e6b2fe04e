"""How predictable a context is, read from the context alone, and a spread factor by it that was
tried and not shipped (docs/model-card.md, "Too wide where the context is predictable").

The ratio: the mean absolute error of the best lag-k naive forecast inside the context (k = 1 or
one of the generator's calendar periods), over the scale the network divides by. Near 0 for a
clean seasonal or smooth series, about 1 or more for noise.

    model/.venv/bin/python model/predictability.py --diagnose   # held-out coverage by ratio bin
    model/.venv/bin/python model/predictability.py --fit        # a factor per bin (seed key 10)
    model/.venv/bin/python model/predictability.py --check 0.75 1 1 1 1 1
                        # those factors on validate.py's held-out series and realcheck.py's real ones

`--check` needs the realcheck packages (`bash model/setup.sh realcheck`).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from validate import HELD_OUT_KEY, LENGTHS, coverage, pinball, scored_batches  # noqa: E402

LAGS = (1, 4, 6, 7, 8, 12, 24, 30, 48, 52, 96, 168, 365)
MIN_PAIRS = 16
EDGES = (0.03, 0.06, 0.1, 0.2, 0.35)
GRID = tuple(round(0.5 + 0.05 * i, 2) for i in range(21))
MIN_GAIN = 0.01
CALIBRATION_KEY = 10  # training uses () and (2,), validate.py 9


def naive_ratio(ctx, mask, lags=LAGS, min_pairs=MIN_PAIRS):
    """[B] best in-context lag-k naive MAE / (std + 1e-4 * mean |level| + 1e-30), the scale of
    `net.Scaler`; NaN where no lag has `min_pairs` observed pairs."""
    ctx = ctx.astype(np.float64)
    mask = mask.astype(np.float64)
    best = np.full(len(ctx), np.inf)
    for k in lags:
        if k >= ctx.shape[1]:
            continue
        pair = mask[:, k:] * mask[:, :-k]
        n = pair.sum(axis=1)
        mae = (np.abs(ctx[:, k:] - ctx[:, :-k]) * pair).sum(axis=1) / np.maximum(n, 1)
        best = np.minimum(best, np.where(n >= min_pairs, mae, np.inf))
    n = np.maximum(mask.sum(axis=1), 1)
    mean = (ctx * mask).sum(axis=1) / n
    std = np.sqrt((((ctx - mean[:, None]) * mask) ** 2).sum(axis=1) / n)
    level = (np.abs(ctx) * mask).sum(axis=1) / n
    ratio = best / (std + 1e-4 * level + 1e-30)
    return np.where(np.isfinite(ratio), ratio, np.nan)


def bin_of(ratio):
    """The bin index of each ratio; -1 where the context is too short to have one."""
    return np.where(np.isnan(ratio), -1, np.searchsorted(EDGES, np.nan_to_num(ratio), side="right"))


def factors_for(ratio, factors):
    """[B] the factor of each ratio's bin (1 where the context is too short to have one)."""
    b = bin_of(ratio)
    return np.where(b < 0, 1.0, np.asarray(factors, float)[np.maximum(b, 0)])


def rescale(q, factor):
    """Every quantile's distance from the median (index 6) times `factor` [B]."""
    median = q[:, :, 6:7]
    return median + factor[:, None, None] * (q - median)


def generated(onnx_path, key, batches, batch=64):
    """`validate.scored_batches` at each of validate.py's context lengths, with each series' ratio:
    (length, ratio, naive scale, target, quantiles)."""
    import onnxruntime as ort

    cfg = json.loads((HERE / "config.json").read_text())
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 2
    sess = ort.InferenceSession(onnx_path, opts, providers=["CPUExecutionProvider"])
    for length in LENGTHS:
        for ctx, mask, scale, target, q in scored_batches(sess, cfg["seed"], key, length, batches, batch, cfg["model"]["horizon"]):
            yield length, naive_ratio(ctx, mask), scale, target, q


def bin_label(b):
    if b < 0:
        return "too short"
    lows, highs = ("0", *map(str, EDGES)), (*map(str, EDGES), "inf")
    return f"{lows[b]}–{highs[b]}"


def diagnose(onnx_path, batches):
    """Coverage and loss by ratio bin on validate.py's held-out series."""
    rows = [(bin_of(r), pinball(t, q, s), *coverage(t, q))
            for _, r, s, t, q in generated(onnx_path, HELD_OUT_KEY, batches)]
    b, loss, c80, c90 = (np.concatenate(x) for x in zip(*rows))
    print("| ratio | series | loss | cov 80 | cov 90 |\n|---|---:|---:|---:|---:|")
    for k in range(-1, len(EDGES) + 1):
        at = b == k
        print(f"| {bin_label(k)} | {at.sum()} | {loss[at].mean():.4f} | {100 * c80[at].mean():.1f} | {100 * c90[at].mean():.1f} |")
    print(f"| all | {len(b)} | {loss.mean():.4f} | {100 * c80.mean():.1f} | {100 * c90.mean():.1f} |")


def fit(onnx_path, batches):
    """Per bin: (series, loss at 1, best factor, its loss, the factor the rule keeps)."""
    bins, losses = [], []
    for _, r, s, t, q in generated(onnx_path, CALIBRATION_KEY, batches):
        bins.append(bin_of(r))
        losses.append(np.stack([pinball(t, rescale(q, np.full(len(q), f)), s) for f in GRID], axis=1))
    bins, losses = np.concatenate(bins), np.concatenate(losses)
    one = GRID.index(1.0)
    out = []
    for b in range(len(EDGES) + 1):
        mean = losses[bins == b].mean(axis=0)
        best = int(np.argmin(mean))
        kept = GRID[best] if mean[best] <= (1 - MIN_GAIN) * mean[one] else 1.0
        out.append((int((bins == b).sum()), float(mean[one]), GRID[best], float(mean[best]), kept))
    return out


def check(onnx_path, factors, batches):
    """The rule's second step: validate.py's held-out loss per context length, and realcheck.py's
    loss per family and over all its datasets (family factors applied), without and with."""
    per = {}
    for length, r, s, t, q in generated(onnx_path, HELD_OUT_KEY, batches):
        f = factors_for(r, factors)
        per.setdefault(length, []).append((pinball(t, q, s), pinball(t, rescale(q, f), s)))
    print("| held-out, ctx | loss without | loss with |\n|---|---:|---:|")
    means = []
    for length, parts in per.items():
        without, with_ = (np.concatenate(x).mean() for x in zip(*parts))
        means.append((without, with_))
        print(f"| {length} | {without:.4f} | {with_:.4f} |")
    print(f"| mean | {np.mean([m[0] for m in means]):.4f} | {np.mean([m[1] for m in means]):.4f} |\n")

    # Only --check needs realcheck's packages.
    import realcheck
    from eval import OnnxForecaster

    family = json.loads((HERE / "calibration.json").read_text())["spread_scale"]
    windows = realcheck.forecast_windows(OnnxForecaster(onnx_path), realcheck.load_series(widened=False), with_context=True)
    both = {"without": [], "with": []}
    for dataset, freq, scale, target, q, ctx in windows:
        ctx = ctx[-4096:]  # what serving gives the model
        f = factors_for(naive_ratio(np.nan_to_num(ctx)[None], np.isfinite(ctx)[None].astype(float)), factors)[0]
        for name, g in (("without", 1.0), ("with", f)):
            both[name].append((dataset, freq, scale, target, rescale(q[None], np.array([family.get(freq, 1.0) * g]))[0]))
    print("| realcheck | loss without | loss with | cov 80 without / with |\n|---|---:|---:|---:|")
    scored = {name: realcheck.scores(ws) for name, ws in both.items()}
    for fam in [*realcheck.HORIZON, "all"]:
        keys = [k for k in scored["without"] if fam in ("all", k[1])]
        (l0, c0, _), (l1, c1, _) = (np.mean([scored[n][k] for k in keys], axis=0) for n in ("without", "with"))
        print(f"| {fam} | {l0:.4f} | {l1:.4f} | {c0:.1f} / {c1:.1f} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--diagnose", action="store_true", help="held-out coverage and loss by ratio bin")
    ap.add_argument("--fit", action="store_true", help="fit a factor per bin on generated series (key 10)")
    ap.add_argument("--check", type=float, nargs=len(EDGES) + 1, metavar="F",
                    help="score these factors (one per bin) on held-out and real series")
    ap.add_argument("--onnx", default=str(HERE.parent / "models" / "hora-1.0.onnx"))
    ap.add_argument("--batches", type=int, help="batches of 64 per context length (16; --fit 32)")
    args = ap.parse_args()
    if args.diagnose:
        diagnose(args.onnx, args.batches or 16)
    if args.fit:
        print("| ratio | series | loss at 1 | best factor | its loss | kept |\n|---|---:|---:|---:|---:|---:|")
        for b, (n, l1, best, lb, kept) in enumerate(fit(args.onnx, args.batches or 32)):
            print(f"| {bin_label(b)} | {n} | {l1:.4f} | {best:g} | {lb:.4f} | {kept:g} |")
    if args.check:
        check(args.onnx, args.check, args.batches or 16)
    if not (args.diagnose or args.fit or args.check):
        ap.error("nothing to do: --diagnose, --fit or --check")


if __name__ == "__main__":
    main()
