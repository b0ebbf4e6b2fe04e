"""Synthetic training series for hora-1.0 (never M4: the evaluation sets stay out of training).

One call of `make_batch` returns a batch of full series (context + horizon) built from random
mixtures of: trends (linear, damped, piecewise, exponential), up to three seasonalities (harmonic
sums at calendar-like and random periods, additive or multiplicative), Gaussian-process-like smooth
components (random Fourier features of an RBF kernel), ARIMA/ETS-type stochastic processes, level
shifts, spikes, heavy-tailed and heteroscedastic noise, intermittent demand and nonnegative
transforms. Everything is vectorised over the batch; the only time loop is the AR(2) recursion.
"""
from __future__ import annotations

import numpy as np

# Periods seen in calendars (hourly: 24, 168, 12; daily: 7, 30.4, 365.25; weekly: 52.18, 4.35;
# monthly: 12; quarterly: 4) plus uniform random ones, so the model learns periodicity generally.
CALENDAR_PERIODS = np.array([24.0, 168.0, 12.0, 7.0, 52.18, 30.44, 4.0, 48.0, 365.25, 6.0, 8.0, 96.0])
CALENDAR_WEIGHTS = np.array([8.0, 4.0, 2.0, 3.0, 3.0, 1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5])


def _log_uniform(rng, lo, hi, size):
    return np.exp(rng.uniform(np.log(lo), np.log(hi), size))


def _periods(rng, b):
    cal = rng.choice(CALENDAR_PERIODS, size=b, p=CALENDAR_WEIGHTS / CALENDAR_WEIGHTS.sum())
    rnd = _log_uniform(rng, 3.0, 200.0, b)
    return np.where(rng.random(b) < 0.75, cal, rnd)


def _seasonality(rng, b, t, length):
    """Sum of up to three periodic components, each a random harmonic series (peaky or smooth)."""
    out = np.zeros((b, length))
    n_comp = rng.choice([0, 1, 2, 3], size=b, p=[0.15, 0.4, 0.3, 0.15])
    kmax = 10
    k = np.arange(1, kmax + 1)[None, :, None]
    for c in range(3):
        on = (n_comp > c).astype(float)
        period = _periods(rng, b)
        n_harm = np.minimum(rng.integers(1, kmax + 1, b), np.maximum(1, (period // 2).astype(int)))
        decay = rng.uniform(0.0, 1.5, b)
        amp = rng.normal(size=(b, kmax)) / (np.arange(1, kmax + 1)[None, :] ** decay[:, None])
        amp *= np.arange(1, kmax + 1)[None, :] <= n_harm[:, None]
        phase = rng.uniform(0, 2 * np.pi, (b, kmax))
        ang = 2 * np.pi * k * t[None, None, :] / period[:, None, None] + phase[:, :, None]
        comp = np.einsum("bk,bkt->bt", amp, np.sin(ang))
        comp /= comp.std(axis=1, keepdims=True) + 1e-8
        # Slowly changing amplitude in some series.
        drift = np.where(rng.random(b) < 0.3, rng.normal(0, 0.5, b), 0.0)
        comp *= 1.0 + drift[:, None] * t[None, :] / length
        weight = on * _log_uniform(rng, 0.2, 2.0, b) * (0.5 ** c)
        out += weight[:, None] * comp
    return out


def _trend(rng, b, t, length):
    kind = rng.choice(4, size=b, p=[0.3, 0.3, 0.25, 0.15])  # none-ish, linear, damped, piecewise
    slope = rng.normal(0, 1, b) * _log_uniform(rng, 0.05, 3.0, b) / length
    lin = slope[:, None] * t[None, :]
    phi = rng.uniform(0.95, 0.9995, b)
    damped = slope[:, None] * (1 - phi[:, None] ** t[None, :]) / (1 - phi[:, None]) * 0.5
    cps = (rng.random((b, length)) < (3.0 / length)) * rng.normal(0, 2.0, (b, length)) / length
    piece = np.cumsum(slope[:, None] + np.cumsum(cps, axis=1), axis=1)
    out = np.where((kind == 1)[:, None], lin, 0.0)
    out = np.where((kind == 2)[:, None], damped, out)
    out = np.where((kind == 3)[:, None], piece, out)
    out = np.where((kind == 0)[:, None], 0.1 * lin, out)
    return out


def _smooth_gp(rng, b, t):
    """Random Fourier features of an RBF kernel: a smooth Gaussian-process-like draw."""
    n_feat = 16
    lengthscale = _log_uniform(rng, 4.0, 600.0, b)
    omega = rng.normal(size=(b, n_feat)) / lengthscale[:, None]
    phase = rng.uniform(0, 2 * np.pi, (b, n_feat))
    feats = np.cos(omega[:, :, None] * t[None, None, :] + phase[:, :, None])
    w = rng.normal(size=(b, n_feat)) * np.sqrt(2.0 / n_feat)
    return np.einsum("bf,bft->bt", w, feats)


def _innovations(rng, b, length):
    heavy = rng.random(b) < 0.3
    df = rng.uniform(2.5, 8.0, b)
    gauss = rng.normal(size=(b, length))
    student = rng.standard_t(df[:, None], size=(b, length)) / np.sqrt(df[:, None] / (df[:, None] - 2))
    return np.where(heavy[:, None], student, gauss)


def _arima(rng, b, length):
    """AR(2) recursion, optionally integrated once (ARIMA(2,1,0)) or as an ETS local level."""
    e = _innovations(rng, b, length)
    r1 = rng.uniform(-0.6, 0.98, b)
    r2 = rng.uniform(-0.5, 0.6, b) * (rng.random(b) < 0.4)
    phi1, phi2 = r1 + r2, -r1 * r2  # roots inside the unit circle: stationary
    x = np.zeros((b, length))
    x[:, 0] = e[:, 0]
    x[:, 1] = phi1 * x[:, 0] + e[:, 1]
    for i in range(2, length):
        x[:, i] = phi1 * x[:, i - 1] + phi2 * x[:, i - 2] + e[:, i]
    kind = rng.choice(3, size=b, p=[0.5, 0.25, 0.25])
    alpha = rng.uniform(0.05, 0.6, b)
    integrated = np.cumsum(x, axis=1) * 0.1
    local_level = np.cumsum(alpha[:, None] * e, axis=1) + e
    out = np.where((kind == 1)[:, None], integrated, x)
    out = np.where((kind == 2)[:, None], local_level, out)
    return out / (out.std(axis=1, keepdims=True) + 1e-8)


def _level_shifts(rng, b, length):
    jumps = (rng.random((b, length)) < rng.uniform(0, 4.0 / length, b)[:, None])
    return np.cumsum(jumps * rng.normal(0, 1.5, (b, length)), axis=1)


def make_batch(rng: np.random.Generator, b: int, length: int) -> np.ndarray:
    """Return float32 [b, length] series (context and horizon together), finite."""
    t = np.arange(length, dtype=np.float64)
    w = lambda p, lo, hi: (rng.random(b) < p) * _log_uniform(rng, lo, hi, b)  # noqa: E731

    season = _seasonality(rng, b, t, length)
    trend = _trend(rng, b, t, length)
    trend /= np.maximum(np.abs(trend).max(axis=1, keepdims=True), 1e-8)
    smooth = _smooth_gp(rng, b, t)
    stoch = _arima(rng, b, length)
    shifts = _level_shifts(rng, b, length)
    white = _innovations(rng, b, length)

    y = (
        w(0.6, 0.1, 4.0)[:, None] * trend
        + w(0.85, 0.5, 3.0)[:, None] * season
        + w(0.35, 0.1, 2.0)[:, None] * smooth
        + w(0.5, 0.02, 1.5)[:, None] * stoch
        + w(0.15, 0.1, 1.0)[:, None] * shifts
        + w(0.9, 0.01, 1.0)[:, None] * white
    )
    # Heteroscedastic noise that follows the seasonal cycle.
    het = rng.random(b) < 0.2
    y += np.where(het[:, None], 0.2 * np.abs(season) * rng.normal(size=(b, length)), 0.0)

    # Multiplicative series: exp of a standardised additive signal (seasonal amplitude tracks level).
    mult = rng.random(b) < 0.3
    ys = (y - y.mean(axis=1, keepdims=True)) / (y.std(axis=1, keepdims=True) + 1e-8)
    y = np.where(mult[:, None], np.exp(np.clip(ys * rng.uniform(0.1, 0.7, b)[:, None], -20, 20)), y)

    # Intermittent demand: Bernoulli occurrences times log-normal sizes.
    inter = rng.random(b) < 0.08
    p_occ = rng.uniform(0.05, 0.6, b)
    occ = rng.random((b, length)) < p_occ[:, None]
    sizes = np.exp(rng.normal(0, 0.7, (b, length))) * (1 + (rng.random(b) < 0.5)[:, None] * 0.3 * season)
    y = np.where(inter[:, None], occ * np.maximum(sizes, 0), y)

    # Nonnegative clipping (counts, sales) on some series.
    clip = (rng.random(b) < 0.1) & ~inter
    y = np.where(clip[:, None], np.maximum(y - np.quantile(y, rng.uniform(0, 0.3), axis=1, keepdims=True), 0), y)

    # Rare spikes (outliers) anywhere.
    spikes = (rng.random((b, length)) < 0.002) * rng.normal(0, 6, (b, length)) * (rng.random(b) < 0.2)[:, None]
    y = y + spikes * (y.std(axis=1, keepdims=True) + 1e-3)

    # Sign and affine augmentation: the model is scale- and sign-agnostic by construction plus this.
    sign = np.where(rng.random(b) < 0.5, -1.0, 1.0)
    scale = _log_uniform(rng, 1e-2, 1e4, b)
    offset = rng.normal(0, 3, b) * (rng.random(b) < 0.5)
    y = (y * sign[:, None] + offset[:, None]) * scale[:, None]
    return np.nan_to_num(y, nan=0.0, posinf=0.0, neginf=0.0).astype(np.float32)


def make_training_batch(rng, b, ctx_len, horizon, min_ctx=16):
    """Context, mask and target for one training step: left padding, gaps and missing points."""
    series = make_batch(rng, b, ctx_len + horizon)
    ctx, target = series[:, :ctx_len].copy(), series[:, ctx_len:].copy()
    mask = np.ones_like(ctx)
    # Left padding: half the series are shorter than the batch's length.
    short = rng.random(b) < 0.5
    lens = np.where(short, rng.integers(min_ctx, ctx_len + 1, b), ctx_len)
    pos = np.arange(ctx_len)[None, :]
    mask[pos < (ctx_len - lens)[:, None]] = 0.0
    # Long masked gaps (the cleaning policy `long_gap: mask`) and scattered missing points.
    gap = rng.random(b) < 0.15
    g_len = (rng.uniform(0.02, 0.2, b) * lens).astype(int)
    g_start = ctx_len - (rng.uniform(0.05, 0.95, b) * lens).astype(int)
    in_gap = (pos >= g_start[:, None]) & (pos < (g_start + g_len)[:, None]) & gap[:, None]
    mask[in_gap] = 0.0
    scatter = (rng.random((b, ctx_len)) < 0.03) & (rng.random(b) < 0.2)[:, None]
    mask[scatter] = 0.0
    # Masked tail: some series end with a few missing points.
    tail = rng.random(b) < 0.05
    t_len = rng.integers(1, 8, b)
    mask[(pos >= (ctx_len - t_len)[:, None]) & tail[:, None]] = 0.0
    mask[:, -1] = np.where(mask[:, :-1].sum(axis=1) == 0, 1.0, mask[:, -1])  # never all-missing
    ctx *= mask
    return ctx, mask, target
