"""A spread factor from backtests over the caller's own history, pooled over several windows: an
experiment that failed its rule on real series outside M4 and is not served (docs/model-card.md,
"A spread factor from a pooled backtest over the context, tried and not shipped").

The single-window version (commit 2a173b1) was too noisy for M4's series. This one forecasts up to
four windows at the end of the context, each from the 256 points before it, pools their errors,
and shrinks the pooled factor towards 1 by how many points it rests on. Nothing here reads an
evaluation set; the rule for keeping it is in the model card and was committed before any run.

- window: w = clamp(h, 16, native horizon) steps; windows j = 1..4 end w (j - 1) steps before the
  context's end; a window needs 64 observed points before it and w / 2 observed in it, else it
  is left out; the forecast of each is the served one (flip averaging, sorted quantiles).
- factor f: exact minimiser over [0.2, 5] of the pinball loss summed over every kept window's
  observed points and the 12 non-median quantiles of m + f (q - m); served factor f ** (n / (n +
  64)), n the pooled observed points (one full native window of 64 points: the square root, as
  the single-window version served); 1 when no window is kept.

    model/.venv/bin/python model/backtest_spread.py --validate      # held-out generated series
    model/.venv/bin/python model/backtest_spread.py --realcheck     # real series outside M4
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from eval import MEDIAN, QUANTILES, ROOT, OnnxForecaster  # noqa: E402
from predictability import rescale  # noqa: E402

WINDOWS = 4
BACKTEST_CONTEXT = 256
MIN_WINDOW = 16
MIN_BEFORE = 64
SHRINK_POINTS = 64
LOWER, UPPER = 0.2, 5.0


def pinball_factor(q, y):
    """Exact minimiser over [LOWER, UPPER] of sum pinball(y - (m + f (q - m))): convex and
    piecewise linear in f, its right derivative rises by |d| at each kink r / d. q: (steps, 13)
    sorted; y: (steps,), NaN missing."""
    ok = np.isfinite(y)
    m = q[ok, MEDIAN][:, None]
    d = (q[ok] - m).ravel()
    r = np.broadcast_to(y[ok][:, None] - m, q[ok].shape).ravel()
    tau = np.broadcast_to(QUANTILES, q[ok].shape).ravel()
    keep = d != 0
    d, r, tau = d[keep], r[keep], tau[keep]
    if len(d) == 0:
        return 1.0
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


def backtests(series, h, native):
    """[(context, window values)] for the kept windows of one series (NaN = missing)."""
    w = min(max(h, MIN_WINDOW), native)
    out = []
    for j in range(WINDOWS):
        end = len(series) - j * w
        if end - w <= 0:
            break
        before, after = series[:end - w][-BACKTEST_CONTEXT:], series[end - w:end]
        if np.isfinite(before).sum() >= MIN_BEFORE and 2 * np.isfinite(after).sum() >= w:
            out.append((before, after))
    return out


def factors(fc, series, h):
    """The served factor of each series, its backtests run through `fc` in one batch per 64."""
    tests = [backtests(np.asarray(s, np.float64), h, fc.native) for s in series]
    flat = [(i, b, a) for i, t in enumerate(tests) for b, a in t]
    qs = []
    for start in range(0, len(flat), 64):
        part = flat[start:start + 64]
        qs.extend(np.sort(fc._run([b for _, b, _ in part]).astype(np.float64), axis=-1))
    pooled = [([], []) for _ in series]
    for (i, _, after), q in zip(flat, qs):
        pooled[i][0].append(q[:len(after)])
        pooled[i][1].append(after)
    out = np.ones(len(series))
    for i, (q, y) in enumerate(pooled):
        if q:
            q, y = np.concatenate(q), np.concatenate(y)
            n = np.isfinite(y).sum()
            out[i] = pinball_factor(q, y) ** (n / (n + SHRINK_POINTS))
    return out


def run_validate(onnx, batches):
    from validate import HELD_OUT_KEY, LENGTHS, coverage, pinball, scored_batches  # noqa: E402
    import onnxruntime as ort

    cfg = json.loads((HERE / "config.json").read_text())
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 2
    sess = ort.InferenceSession(onnx, opts, providers=["CPUExecutionProvider"])
    fc = OnnxForecaster(onnx)
    rows = {(s, c): [] for s in (0.67, 1.0, 1.5) for c in (False, True)}
    all_f = []
    for length in LENGTHS:
        for ctx, mask, scale, target, q in scored_batches(sess, cfg["seed"], HELD_OUT_KEY, length, batches, 64,
                                                          cfg["model"]["horizon"]):
            series = [np.where(mk > 0, c, np.nan) for c, mk in zip(ctx, mask)]
            for s in (0.67, 1.0, 1.5):
                shifted = rescale(q, np.full(len(q), s))
                # the backtests see the model as shifted, as a caller's series would
                fc_s = _Shifted(fc, s)
                f = factors(fc_s, series, cfg["model"]["horizon"])
                if s == 1.0:
                    all_f.append(f)
                for c in (False, True):
                    qq = rescale(shifted, f) if c else shifted
                    c80, c90 = coverage(target, qq)
                    rows[(s, c)].append((length, pinball(target, qq, scale), c80, c90))
    print("| spreads | calibration | " + " | ".join(f"ctx {n}" for n in LENGTHS) + " | mean loss |")
    print("|---|---|" + "---|" * (len(LENGTHS) + 1))
    for (s, c), parts in rows.items():
        cells, means = [], []
        for n in LENGTHS:
            got = [p for p in parts if p[0] == n]
            loss = float(np.mean(np.concatenate([p[1] for p in got])))
            c80 = 100 * float(np.mean(np.concatenate([p[2] for p in got])))
            c90 = 100 * float(np.mean(np.concatenate([p[3] for p in got])))
            cells.append(f"{loss:.4f} / {c80:.1f} / {c90:.1f}")
            means.append(loss)
        print(f"| x{s:g} | {'on' if c else 'off'} | " + " | ".join(cells) + f" | {np.mean(means):.4f} |", flush=True)
    f = np.concatenate(all_f)
    print(f"\nserved factor (spreads as given): median {np.median(f):.3f}, 10 % {np.quantile(f, 0.1):.3f}, "
          f"90 % {np.quantile(f, 0.9):.3f}")


class _Shifted:
    """A forecaster whose spreads are scaled by s: a model too narrow or too wide for its series."""

    def __init__(self, fc, s):
        self.fc, self.s, self.native = fc, s, fc.native

    def _run(self, series):
        q = np.sort(self.fc._run(series).astype(np.float64), axis=-1)
        return rescale(q, np.full(len(q), self.s))


class _Unclipped:
    """The forecaster without its clip at 0, which the caller applies after the factor."""

    def __init__(self, fc):
        self.fc = fc

    def forecast(self, series, h):
        return self.fc.forecast(series, h, clip=False)


def run_realcheck(onnx):
    import collections
    import realcheck

    fc = OnnxForecaster(onnx)
    windows = realcheck.forecast_windows(_Unclipped(fc), realcheck.load_series(widened=False), with_context=True)
    by_h = collections.defaultdict(list)
    for k, w in enumerate(windows):
        by_h[len(w[3])].append(k)
    f = np.ones(len(windows))
    for h, ks in by_h.items():
        f[ks] = factors(fc, [windows[k][5] for k in ks], h)
    clip = lambda w, q: np.maximum(q, 0.0) if np.nanmin(w[5]) >= 0 else q
    calibrated = [w[:4] + (clip(w, rescale(w[4][None], np.array([k]))[0]),) for w, k in zip(windows, f)]
    plain = [w[:4] + (clip(w, w[4]),) for w in windows]
    a, b = realcheck.scores(plain), realcheck.scores(calibrated)
    print("| family | datasets | windows | loss without | loss with | cov 80 without → with | cov 90 without → with |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for fam in [*realcheck.HORIZON, "all"]:
        keys = [k for k in a if fam in ("all", k[1])]
        if not keys:
            continue
        la, ca8, ca9 = np.mean([a[k] for k in keys], axis=0)
        lb, cb8, cb9 = np.mean([b[k] for k in keys], axis=0)
        n = sum(1 for w in windows if fam in ("all", w[1]))
        print(f"| {fam} | {len(keys)} | {n} | {la:.4f} | {lb:.4f} | {ca8:.1f} → {cb8:.1f} | {ca9:.1f} → {cb9:.1f} |")
    print(f"\nserved factor: median {np.median(f):.3f}, 10 % {np.quantile(f, 0.1):.3f}, 90 % {np.quantile(f, 0.9):.3f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnx", default=str(ROOT / "models" / "hora-1.0.onnx"))
    ap.add_argument("--validate", action="store_true")
    ap.add_argument("--realcheck", action="store_true")
    ap.add_argument("--batches", type=int, default=16)
    args = ap.parse_args()
    if args.validate:
        run_validate(args.onnx, args.batches)
    if args.realcheck:
        run_realcheck(args.onnx)


if __name__ == "__main__":
    main()
