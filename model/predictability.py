"""How predictable a context is, read from the context alone: the mean absolute error of the best
lag-k naive forecast inside it (k from the generator's calendar periods, and 1), over the scale the
network divides by. Near 0 for a clean seasonal or smooth series, about 1 or more for noise.

Training weights each series' loss by this ratio (`train.loss_weight` in config.json), so that the
loss counts errors in units of the series' own naive error, as `validate.py` scores them, rather
than in units of its standard deviation; `validate.py --by-predictability` reports coverage by it.
"""
from __future__ import annotations

import numpy as np


def naive_ratio(ctx, mask, lags, min_pairs=16):
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


def loss_weights(ctx, mask, spec):
    """[B] float32 weights with mean 1: ratio ** -power, the ratio floored at `floor` (and taken
    as 1 where the context is too short to have one)."""
    ratio = naive_ratio(ctx, mask, spec["lags"], spec["min_pairs"])
    ratio = np.where(np.isnan(ratio), 1.0, np.maximum(ratio, spec["floor"]))
    w = ratio ** -spec["power"]
    return (w / w.mean()).astype(np.float32)
