"""Intervals past the native horizon: served rollout with and without the accumulated spread.

    model/.venv/bin/python model/rollout_check.py [--batches 16] [--real]

Serving rolls forward past the model's 64 native steps by appending the median and running again
(crates/hora-core/src/model/serve.rs). This script repeats that in numpy over the ONNX file (flip
averaging, the 4,096-point window, sorting) and scores each later block's quantiles as the model
gives them ("own") and with the spread of the block before added in quadrature ("accumulated",
what serving does). Held-out generated series come from the training generator under the
validation seed key (never trained on); `--real` adds realcheck.py's real series outside M4 (needs
`bash model/setup.sh realcheck`). M4 is not used: its horizons stay inside the first block.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from generator import make_training_batch  # noqa: E402
from validate import HELD_OUT_KEY, QUANTILES  # noqa: E402

MEDIAN = 6
NATIVE = 64
MAX_CONTEXT = 4096


def run_round(sess, work):
    """One flip-averaged graph run over the last 4,096 points of each context (NaN = masked)."""
    tails = [w[-MAX_CONTEXT:] for w in work]
    t = -(-max(len(x) for x in tails) // 32) * 32
    ctx = np.zeros((len(work), t), np.float32)
    mask = np.zeros_like(ctx)
    for i, x in enumerate(tails):
        seen = np.isfinite(x)
        ctx[i, t - len(x):][seen] = x[seen]
        mask[i, t - len(x):][seen] = 1.0
    run = lambda c: sess.run(["quantiles"], {"context": c, "mask": mask})[0].astype(np.float64)
    return 0.5 * (run(ctx) - run(-ctx)[:, :, ::-1])


def rollout(sess, ctx, mask, h):
    """Sorted quantiles [n, h, 13] as serving rolls forward, before the spread is accumulated."""
    work = [np.where(m > 0, c, np.nan)[int(np.argmax(m > 0)):].astype(np.float64) for c, m in zip(ctx, mask)]
    blocks, done = [], 0
    while done < h:
        steps = min(NATIVE, h - done)
        q = run_round(sess, work)[:, :steps]
        blocks.append(q)
        work = [np.concatenate([w, q[i, :, MEDIAN]]) for i, w in enumerate(work)]
        done += steps
    return np.sort(np.concatenate(blocks, axis=1), axis=-1)


def accumulate(q):
    """Serving's rule: each later block's distances from the median, in quadrature with the same
    quantile's distance at the previous block's last step (already accumulated)."""
    q = q.copy()
    side = np.sign(np.arange(len(QUANTILES)) - MEDIAN)
    for start in range(NATIVE, q.shape[1], NATIVE):
        carried = q[:, start - 1, :] - q[:, start - 1, MEDIAN:MEDIAN + 1]
        block = q[:, start:start + NATIVE, :]
        median = block[:, :, MEDIAN:MEDIAN + 1]
        q[:, start:start + NATIVE, :] = median + side * np.hypot(block - median, carried[:, None, :])
    return q


def step_scores(q, target, scale):
    """Per series and step: pinball loss over the 13 quantiles / scale, inside 80 %, inside 90 %."""
    d = target[:, :, None] - q
    loss = np.maximum(QUANTILES * d, (QUANTILES - 1) * d).mean(axis=2) / scale[:, None]
    return loss, (target >= q[:, :, 2]) & (target <= q[:, :, 10]), (target >= q[:, :, 1]) & (target <= q[:, :, 11])


def report(label, spans, scored):
    for name, (loss, c80, c90) in scored.items():
        cells = " | ".join(f"{100 * c80[:, a:b].mean():.1f} / {100 * c90[:, a:b].mean():.1f}" for a, b in spans)
        print(f"{label} {name:11s} coverage 80 / 90 by steps {' | '.join(f'{a + 1}-{b}' for a, b in spans)}: {cells}"
              f" | loss past step {NATIVE}: {loss[:, NATIVE:].mean():.3f}", flush=True)


def both(sess, ctx, mask, target, h):
    q = rollout(sess, ctx, mask, h)
    diffs = np.abs(np.diff(np.where(mask > 0, ctx, np.nan), axis=1))
    scale = np.nanmean(diffs, axis=1)
    keep = np.isfinite(scale) & (scale > 0)
    return {name: step_scores(qq[keep], target[keep], scale[keep]) for name, qq in (("own", q), ("accumulated", accumulate(q)))}


def generated(sess, batches, h=512):
    for length in (512, 1024, 2048):
        parts = []
        for i in range(batches):
            rng = np.random.default_rng([20261122, HELD_OUT_KEY, length, h, i])
            ctx, mask, target = make_training_batch(rng, 64, length, h)
            parts.append(both(sess, ctx, mask, target, h))
        scored = {k: tuple(np.concatenate([p[k][j] for p in parts]) for j in range(3)) for k in parts[0]}
        report(f"generated, context {length}, h {h}:", [(0, 64), (64, 128), (128, 256), (256, 512)], scored)


def real(sess):
    import realcheck
    horizons = {"hourly": 256, "daily": 128, "weekly": 104, "monthly": 96}
    series = realcheck.load_series()
    for family, h in horizons.items():
        parts = []
        for _, freq, values in series:
            v = np.asarray(values, float)
            for w in range(2):  # the last two windows
                end = len(v) - w * h
                ctx, target = v[:end - h][-MAX_CONTEXT:], v[end - h:end]
                if freq == family and len(ctx) >= max(64, 2 * h) and np.isfinite(target).all():
                    mask = np.isfinite(ctx).astype(np.float32)
                    parts.append(both(sess, np.nan_to_num(ctx)[None], mask[None], target[None], h))
        scored = {k: tuple(np.concatenate([p[k][j] for p in parts]) for j in range(3)) for k in parts[0]}
        report(f"real {family}, {len(parts)} windows, h {h}:", [(0, 64), (64, h)], scored)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnx", default=str(HERE.parent / "models" / "hora-1.0.onnx"))
    ap.add_argument("--batches", type=int, default=16)
    ap.add_argument("--real", action="store_true")
    args = ap.parse_args()
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 2
    sess = ort.InferenceSession(args.onnx, opts, providers=["CPUExecutionProvider"])
    generated(sess, args.batches)
    if args.real:
        real(sess)


if __name__ == "__main__":
    main()
