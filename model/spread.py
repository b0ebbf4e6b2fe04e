"""In-context spread calibration, the reference of what serving does (crates/hora-core/src/model/spread.rs).

The model's intervals are calibrated on the generator's series; a caller's series may be more or
less predictable than they look. Before forecasting, the model forecasts the last window of the
context from the points before it (a backtest on the caller's own data); the spread factor that
would have minimised the pinball loss of that window, shrunk halfway towards 1 (its square root),
scales every quantile's distance from the median. Nothing here looks at an evaluation set.

- window: clamp(h, 16, native horizon) steps; backtest context: the last 256 points before it (a
  bounded cost); the backtest runs as the forecast does (flip averaging when it is on, so the
  forecast of -x stays the mirrored negation of the forecast of x).
- factor: exact minimiser over [0.2, 5] of the summed pinball loss over the window's observed
  points and the 12 non-median quantiles of m + f (q - m); served factor = sqrt(factor).
- skipped (factor 1) when fewer than 16 points are observed before the window or fewer than 8 in
  it, or when every quantile of the window equals its median.
"""
from __future__ import annotations

import numpy as np

QUANTILES = np.array([0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99])
MEDIAN = 6
BACKTEST_CONTEXT = 256
MIN_WINDOW = 16
MIN_BEFORE = 16
MIN_IN_WINDOW = 8
LOWER, UPPER = 0.2, 5.0


def window(h: int, native: int) -> int:
    return min(max(h, MIN_WINDOW), native)


def backtest(series: np.ndarray, h: int, native: int):
    """(context, window values) of the backtest, or None when the series is too short for one."""
    w = window(h, native)
    if len(series) <= w:
        return None
    before, after = series[:-w][-BACKTEST_CONTEXT:], series[-w:]
    if np.isfinite(before).sum() < MIN_BEFORE or np.isfinite(after).sum() < MIN_IN_WINDOW:
        return None
    return before, after


def pinball_factor(q: np.ndarray, y: np.ndarray) -> float:
    """Exact minimiser over [LOWER, UPPER] of sum pinball(y - (m + f (q - m))): the loss is convex
    and piecewise linear in f, so its right derivative rises by |d| at each kink r / d; the answer
    is where it first reaches 0. q: (steps, 13) sorted quantiles; y: (steps,) with NaN = missing."""
    ok = np.isfinite(y)
    m = q[ok, MEDIAN][:, None]
    d = (q[ok] - m).ravel()
    r = np.broadcast_to(y[ok][:, None] - m, q[ok].shape).ravel()
    tau = np.broadcast_to(QUANTILES, q[ok].shape).ravel()
    keep = d != 0
    d, r, tau = d[keep], r[keep], tau[keep]
    if len(d) == 0:
        return 1.0
    # Right derivative at LOWER: each term's residual just above LOWER decides its side.
    g = r - LOWER * d
    above = np.where(g != 0, g > 0, d < 0)
    slope = float(np.sum(-d * np.where(above, tau, tau - 1)))
    if slope >= 0:
        return LOWER
    kinks = r / d
    inside = (kinks > LOWER) & (kinks < UPPER)
    order = np.argsort(kinks[inside], kind="stable")
    for k, step in zip(kinks[inside][order], np.abs(d[inside][order])):
        slope += float(step)
        if slope >= 0:
            return float(k)
    return UPPER


def served_factor(q: np.ndarray, y: np.ndarray) -> float:
    return float(np.sqrt(pinball_factor(q, y)))


def apply(q: np.ndarray, factor: float) -> np.ndarray:
    """Scales sorted quantiles (steps, 13) about their median."""
    m = q[:, MEDIAN:MEDIAN + 1]
    return m + factor * (q - m)
