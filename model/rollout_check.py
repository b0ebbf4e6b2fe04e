"""Intervals past the native horizon: served rollout with and without the accumulated spread.

    model/.venv/bin/python model/rollout_check.py [--batches 16] [--real]

Serving rolls forward past the model's 64 native steps by appending the median and running again,
and accumulates the interval spreads block by block (crates/hora-core/src/model/serve.rs). This
script forecasts through eval.py's OnnxForecaster, which does what serving does, and scores each
later block's quantiles as the model gives them ("own") and accumulated (what serving returns).
Held-out generated series come from the training generator under the validation seed key (never
trained on); `--real` adds realcheck.py's real series outside M4 (needs `bash model/setup.sh
realcheck`). M4 is not used: its horizons stay inside the first block.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from eval import QUANTILES, OnnxForecaster  # noqa: E402
from generator import make_training_batch  # noqa: E402
from validate import HELD_OUT_KEY  # noqa: E402


def step_scores(q, target, scale):
    """Per series and step: pinball loss over the 13 quantiles / scale, inside 80 %, inside 90 %."""
    d = target[:, :, None] - q
    loss = np.maximum(QUANTILES * d, (QUANTILES - 1) * d).mean(axis=2) / scale[:, None]
    return loss, (target >= q[:, :, 2]) & (target <= q[:, :, 10]), (target >= q[:, :, 1]) & (target <= q[:, :, 11])


def scored(fc, series, target):
    """{"own", "accumulated"}: per-step scores of the windows whose context has a scale."""
    h = target.shape[1]
    scale = np.array([np.nanmean(np.abs(np.diff(s))) for s in series])
    keep = np.isfinite(scale) & (scale > 0)
    series = [s for s, k in zip(series, keep) if k]
    return {name: step_scores(fc.forecast(series, h, accumulate=on)[1], target[keep], scale[keep])
            for name, on in (("own", False), ("accumulated", True))}


def report(label, spans, scores):
    for name, (loss, c80, c90) in scores.items():
        cells = " | ".join(f"{100 * c80[:, a:b].mean():.1f} / {100 * c90[:, a:b].mean():.1f}" for a, b in spans)
        print(f"{label} {name:11s} coverage 80 / 90 by steps {' | '.join(f'{a + 1}-{b}' for a, b in spans)}: {cells}"
              f" | loss past step 64: {loss[:, 64:].mean():.3f}", flush=True)


def generated(fc, batches, h=512):
    for length in (512, 1024, 2048):
        series, targets = [], []
        for i in range(batches):
            rng = np.random.default_rng([20261122, HELD_OUT_KEY, length, h, i])
            ctx, mask, target = make_training_batch(rng, 64, length, h)
            # Missing points as NaN, the left padding cut off: the history a caller would send.
            series += [np.where(m > 0, c, np.nan)[int(np.argmax(m > 0)):] for c, m in zip(ctx, mask)]
            targets.append(target)
        report(f"generated, context {length}, h {h}:", [(0, 64), (64, 128), (128, 256), (256, 512)],
               scored(fc, series, np.concatenate(targets)))


def real(fc):
    import realcheck
    horizons = {"hourly": 256, "daily": 128, "weekly": 104, "monthly": 96}
    loaded = realcheck.load_series(widened=False)  # the data its figures in the model card were read on
    for family, h in horizons.items():
        series, targets = [], []
        for _, freq, values in loaded:
            v = np.asarray(values, float)
            for w in range(2):  # the last two windows
                end = len(v) - w * h
                ctx, target = v[:end - h], v[end - h:end]
                if freq == family and len(ctx) >= max(64, 2 * h) and np.isfinite(target).all():
                    series.append(ctx)
                    targets.append(target)
        report(f"real {family}, {len(series)} windows, h {h}:", [(0, 64), (64, h)], scored(fc, series, np.stack(targets)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnx", default=str(HERE.parent / "models" / "hora-1.0.onnx"))
    ap.add_argument("--batches", type=int, default=16)
    ap.add_argument("--real", action="store_true")
    args = ap.parse_args()
    fc = OnnxForecaster(args.onnx)
    generated(fc, args.batches)
    if args.real:
        real(fc)


if __name__ == "__main__":
    main()
