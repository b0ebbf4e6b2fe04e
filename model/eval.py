"""Score hora-1.0 and statsforecast baselines on the M4 Hourly (h=48) and Weekly (h=13) last windows.

    model/.venv/bin/python model/eval.py                          # hora-1.0 via onnxruntime + baselines
    model/.venv/bin/python model/eval.py --service URL --key KEY  # hora-1.0 through POST /v1/forecast
    npm run eval                                                  # the same through a server it starts
    options: --sets hourly weekly, --no-baselines, --baselines NAME.. (AutoARIMA-exact: statsforecast's
             slow default search), --cached-only, --jobs N,
             --onnx PATH, --no-flip

Context is the train file, targets the test file (M4's own last window). Metrics: MASE (seasonal
period 24 hourly, 1 weekly; mean, median and the share of series that beat seasonal naive), sMAPE,
mean weighted quantile loss over the 13 quantiles (2 * pinball summed over series and steps, divided
by the sum of absolute targets, averaged over quantiles), empirical coverage of the 80 % and 90 %
intervals, and wall time. Baselines are cached under .eval/baselines/ (gitignored): they are slow.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.request
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = ROOT.parent / "shared" / "data" / "m4"
if not DATA.exists():
    DATA = Path("/work/shared/data/m4")
CACHE = ROOT / ".eval" / "baselines"
QUANTILES = np.array([0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99])
MEDIAN = 6  # QUANTILES[MEDIAN] == 0.5
LEVELS = [20, 40, 60, 80, 90, 98]  # with the median these are exactly the 13 native quantiles
SETS = {"hourly": dict(file="Hourly", h=48, m=24, freq="h", step=timedelta(hours=1)),
        "weekly": dict(file="Weekly", h=13, m=1, freq="W", step=timedelta(weeks=1))}
# Baselines by name: statsforecast's model class and its arguments (besides season_length).
# "AutoARIMA" searches its orders as R's forecast::auto.arima does by default, the implementation
# behind M4's published ARIMA figures: by conditional sums of squares when a series is longer than
# 150 points or its period above 12, then the chosen model is refitted by maximum likelihood.
# statsforecast's class default (`approximation=False`) searches by maximum likelihood throughout:
# "AutoARIMA-exact", some 25 times slower here (about 7 CPU-hours on M4 Hourly), run only when named.
BASELINES = {
    "SeasonalNaive": ("SeasonalNaive", {}),
    "AutoETS": ("AutoETS", {}),
    "AutoTheta": ("AutoTheta", {}),
    "AutoARIMA": ("AutoARIMA", {"approximation": None}),
    "AutoARIMA-exact": ("AutoARIMA", {"approximation": False}),
}
DEFAULT_BASELINES = ("SeasonalNaive", "AutoETS", "AutoTheta", "AutoARIMA")


def read_m4(name):
    """Series as float arrays in file order, trailing empty cells dropped."""
    def rows(path):
        out = {}
        with open(path) as f:
            next(f)
            for line in f:
                cells = line.rstrip("\n").split(",")
                key = cells[0].strip('"')
                out[key] = np.array([float(c.strip('"')) for c in cells[1:] if c.strip('"') != ""])
        return out
    train, test = rows(DATA / f"{name}-train.csv"), rows(DATA / f"{name}-test.csv")
    ids = list(train)
    return ids, [train[i] for i in ids], np.stack([test[i] for i in ids])


# ---------------------------------------------------------------- hora-1.0 through onnxruntime
def accumulate_rollout_spread(q, native):
    """Serving's rule for sorted quantiles [n, h, 13] past the native horizon: each later block's
    distances from the median, in quadrature with the same quantile's distance at the previous
    block's last step (already accumulated); the median stays (crates/hora-core/src/model/serve.rs)."""
    q = q.copy()
    side = np.sign(np.arange(len(QUANTILES)) - MEDIAN)
    for start in range(native, q.shape[1], native):
        carried = q[:, start - 1, :] - q[:, start - 1, MEDIAN:MEDIAN + 1]
        block = q[:, start:start + native, :]
        median = block[:, :, MEDIAN:MEDIAN + 1]
        q[:, start:start + native, :] = median + side * np.hypot(block - median, carried[:, None, :])
    return q


class OnnxForecaster:
    """Does what serving does: left-pad batches, flip-average, roll past the native horizon
    (median appended as observed, interval spreads accumulated block by block unless
    `accumulate` is off), clip at 0 when the history is nonnegative, sort quantiles.
    Not serving's interval calibration by frequency family (`hora.spread_scale`): it is 1 for
    hourly and weekly grids, and realcheck.py scores the model as trained to derive it."""

    def __init__(self, path, flip=True, threads=2, max_context=None):
        import onnxruntime as ort
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")  # shared cores
        self.sess = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        meta = self.sess.get_modelmeta().custom_metadata_map
        self.native = int(meta["hora.native_horizon"])
        self.multiple = int(meta["hora.context_multiple"])
        self.max_context = max_context or int(meta["hora.max_context"])
        # The file's metadata is the source of the native quantiles; the scripts index by QUANTILES.
        native = np.array([float(q) for q in meta["hora.quantiles"].split(",")])
        if native.shape != QUANTILES.shape or not np.allclose(native, QUANTILES):
            raise ValueError(f"{path}: native quantiles {native.tolist()} differ from eval.QUANTILES")
        self.flip = flip

    def _run(self, series):
        t = max(len(s) for s in series)
        t = -(-t // self.multiple) * self.multiple
        ctx = np.zeros((len(series), t), np.float32)
        mask = np.zeros((len(series), t), np.float32)
        for i, s in enumerate(series):
            ok = np.isfinite(s)
            ctx[i, t - len(s):] = np.where(ok, s, 0.0)
            mask[i, t - len(s):] = ok
        if self.flip:
            both = self.sess.run(["quantiles"], {"context": np.concatenate([ctx, -ctx]),
                                                 "mask": np.concatenate([mask, mask])})[0]
            n = len(series)
            return 0.5 * (both[:n] - both[n:, :, ::-1])
        return self.sess.run(["quantiles"], {"context": ctx, "mask": mask})[0]

    def forecast(self, series, h, batch=64, accumulate=True, clip=True):
        # Serving's rules (crates/hora-core/src/model/serve.rs) for the scripts that run the file
        # without the service: a change to either is a change to both.
        out = []
        order = np.argsort([len(s) for s in series])  # similar lengths together: less padding
        result = [None] * len(series)
        for start in range(0, len(series), batch):
            idx = order[start:start + batch]
            hist = [np.asarray(series[i], np.float64)[-self.max_context:] for i in idx]
            # As serving judges `nonnegative: auto`: every value sent, not only the context.
            clips = [clip and np.nanmin(np.asarray(series[i], np.float64)) >= 0 for i in idx]
            parts, ctxs = [], hist
            while sum(p.shape[1] for p in parts) < h:
                q = np.sort(self._run(ctxs).astype(np.float64), axis=-1)
                parts.append(q)
                # The median rolled on as it is shown: clipped at 0 where the forecast is.
                shown = [np.maximum(q[j, :, MEDIAN], 0.0) if clips[j] else q[j, :, MEDIAN] for j in range(len(ctxs))]
                ctxs = [np.r_[c, shown[j]][-self.max_context:] for j, c in enumerate(ctxs)]
            q = np.concatenate(parts, axis=1)[:, :h]
            if accumulate:
                q = accumulate_rollout_spread(q, self.native)
            for j, i in enumerate(idx):
                if clips[j]:
                    q[j] = np.maximum(q[j], 0.0)
                result[i] = q[j]
        out = np.stack(result)
        return out[:, :, MEDIAN], out


# ---------------------------------------------------------------- hora-1.0 through the service
def stamps(n, step, start=datetime(2000, 1, 3, tzinfo=timezone.utc)):
    return [(start + k * step).strftime("%Y-%m-%dT%H:%M:%SZ") for k in range(n)]


def service_forecast(url, key, ids, series, cfg, chunk=50):
    """POST /v1/forecast in chunks; levels 20..98 return all 13 native quantiles as intervals."""
    h = cfg["h"]
    point = np.zeros((len(ids), h))
    quant = np.zeros((len(ids), h, 13))
    for start in range(0, len(ids), chunk):
        rows = []
        for uid, s in zip(ids[start:start + chunk], series[start:start + chunk]):
            rows += [{"unique_id": uid, "ds": d, "y": float(v)} for d, v in zip(stamps(len(s), cfg["step"]), s)]
        body = json.dumps({"series": rows, "h": h, "freq": cfg["freq"], "level": LEVELS}).encode()
        req = urllib.request.Request(url.rstrip("/") + "/v1/forecast", data=body, method="POST",
                                     headers={"Content-Type": "application/json", "Authorization": f"Bearer {key}"})
        for attempt in range(20):
            try:
                with urllib.request.urlopen(req, timeout=300) as resp:
                    payload = json.loads(resp.read())
                break
            except urllib.error.HTTPError as e:
                if e.code in (429, 503) and attempt < 19:
                    time.sleep(float(e.headers.get("Retry-After") or 2))
                    continue
                raise SystemExit(f"service answered {e.code}: {e.read()[:500]!r}")
        pos = {uid: i for i, uid in enumerate(ids)}
        seen = {}
        for row in payload["forecast"]:
            i = pos[row["unique_id"]]
            k = seen.get(i, 0)
            seen[i] = k + 1
            point[i, k] = quant[i, k, MEDIAN] = row["y_hat"]
            for lvl_key, iv in row.get("intervals", {}).items():
                lvl = float(lvl_key)
                lo = int(np.argmin(np.abs(QUANTILES - (0.5 - lvl / 200))))
                quant[i, k, lo], quant[i, k, 12 - lo] = iv["lo"], iv["hi"]
    return point, quant


# ---------------------------------------------------------------- statsforecast baselines
def baseline(name, set_name, ids, series, cfg, refresh=False, jobs=2, part_size=32):
    """statsforecast's `name` on every series. Series are independent, so they run in parts of
    `part_size`, each cached as it finishes: an interrupted run (AutoARIMA-exact takes hours on
    M4 Hourly here) resumes where it stopped."""
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"{set_name}-{name}.npz"
    if path.exists() and not refresh:
        z = np.load(path)
        return z["point"], z["quant"], float(z["seconds"])
    starts = range(0, len(ids), part_size)
    points, quants, seconds = [], [], 0.0
    for k, start in enumerate(starts):
        part_path = CACHE / f"{set_name}-{name}.part{k + 1}of{len(starts)}.npz"
        if part_path.exists() and not refresh:
            z = np.load(part_path)
            p, q, secs = z["point"], z["quant"], float(z["seconds"])
        else:
            stop = start + part_size
            p, q, secs = _statsforecast(name, ids[start:stop], series[start:stop], cfg, jobs)
            np.savez(part_path, point=p, quant=q, seconds=secs)
            print(f"  {name} {set_name}: part {k + 1} of {len(starts)} in {secs:.0f} s", file=sys.stderr, flush=True)
        points.append(p)
        quants.append(q)
        seconds += secs
    point, quant = np.concatenate(points), np.concatenate(quants)
    np.savez(path, point=point, quant=quant, seconds=seconds)
    for part_path in CACHE.glob(f"{set_name}-{name}.part*.npz"):
        part_path.unlink()
    return point, quant, seconds


def _statsforecast(name, ids, series, cfg, jobs):
    import pandas as pd
    from statsforecast import StatsForecast
    from statsforecast import models as sfm
    m = cfg["m"]
    cls, kwargs = BASELINES[name]
    model = getattr(sfm, cls)(season_length=m, **kwargs)
    df = pd.DataFrame({"unique_id": np.repeat(ids, [len(s) for s in series]),
                       "ds": np.concatenate([np.arange(len(s)) for s in series]),
                       "y": np.concatenate(series)})
    t0 = time.time()
    fc = StatsForecast(models=[model], freq=1, n_jobs=jobs).forecast(df=df, h=cfg["h"], level=LEVELS)
    seconds = time.time() - t0
    fc = fc.reset_index() if "unique_id" not in fc.columns else fc
    fc["unique_id"] = pd.Categorical(fc["unique_id"], categories=ids)
    fc = fc.sort_values(["unique_id", "ds"])
    col = str(model)
    point = fc[col].to_numpy().reshape(len(ids), cfg["h"])
    quant = np.zeros((len(ids), cfg["h"], 13))
    quant[:, :, MEDIAN] = point
    for lvl in LEVELS:
        lo = int(np.argmin(np.abs(QUANTILES - (0.5 - lvl / 200))))
        quant[:, :, lo] = fc[f"{col}-lo-{lvl}"].to_numpy().reshape(len(ids), cfg["h"])
        quant[:, :, 12 - lo] = fc[f"{col}-hi-{lvl}"].to_numpy().reshape(len(ids), cfg["h"])
    return point, quant, seconds


# ---------------------------------------------------------------- metrics
def mase_per_series(series, target, point, m):
    scale = np.array([np.mean(np.abs(s[m:] - s[:-m])) for s in series])
    return np.mean(np.abs(target - point), axis=1) / scale


def metrics(series, target, point, quant, m, snaive_mase=None):
    quant = np.sort(quant, axis=-1)
    mase = mase_per_series(series, target, point, m)
    smape = 200 * np.mean(np.abs(target - point) / (np.abs(target) + np.abs(point)))
    diff = target[:, :, None] - quant
    pin = np.maximum(QUANTILES * diff, (QUANTILES - 1) * diff)
    wql = np.mean(2 * pin.sum(axis=(0, 1)) / np.abs(target).sum())
    cov80 = np.mean((target >= quant[:, :, 2]) & (target <= quant[:, :, 10]))
    cov90 = np.mean((target >= quant[:, :, 1]) & (target <= quant[:, :, 11]))
    out = dict(mase=mase.mean(), mase_median=np.median(mase), smape=smape, wql=wql, cov80=cov80, cov90=cov90)
    if snaive_mase is not None:
        out["beats_snaive"] = np.mean(mase < snaive_mase)
    return out, mase


def interval_detail(set_name, target, quants, reference):
    """Where 80 % coverage comes from: per series (the share of series whose every target lies in
    the interval, the share with less than half inside) and the interval's width per series
    against the reference model's (median over series of the ratio of mean widths)."""
    width = lambda q: (np.sort(q, axis=-1)[:, :, 10] - np.sort(q, axis=-1)[:, :, 2]).mean(axis=1)
    ref = width(quants[reference])
    lines = [f"M4 {set_name.capitalize()}: 80 % intervals per series", "",
             "| model | cov 80 | series fully covered | series under half covered | median width vs hora-1.0 |",
             "|---|---:|---:|---:|---:|"]
    for name, q in quants.items():
        q = np.sort(q, axis=-1)
        per = ((target >= q[:, :, 2]) & (target <= q[:, :, 10])).mean(axis=1)
        ratio = np.median(width(q)[ref > 0] / ref[ref > 0])
        lines.append(f"| {name} | {100 * per.mean():.1f} | {100 * np.mean(per == 1):.1f} % | "
                     f"{100 * np.mean(per < 0.5):.1f} % | {ratio:.2f} |")
    return "\n".join(lines)


def table(set_name, results):
    lines = [f"M4 {set_name.capitalize()} (h={SETS[set_name]['h']})", "",
             "| model | MASE | MASE median | sMAPE | WQL13 | cov 80 | cov 90 | share beating SNaive | wall s |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, (r, secs) in results.items():
        share = f"{100 * r['beats_snaive']:.0f} %" if "beats_snaive" in r else ""
        lines.append(f"| {name} | {r['mase']:.3f} | {r['mase_median']:.3f} | {r['smape']:.2f} | {r['wql']:.4f} | "
                     f"{100 * r['cov80']:.1f} | {100 * r['cov90']:.1f} | {share} | {secs:.1f} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", nargs="+", default=["hourly", "weekly"], choices=list(SETS))
    ap.add_argument("--onnx", default=str(ROOT / "models" / "hora-1.0.onnx"))
    ap.add_argument("--service", default=os.environ.get("HORA_EVAL_SERVICE"),
                    help="base URL of a running Hora service (default: $HORA_EVAL_SERVICE)")
    ap.add_argument("--key", default=os.environ.get("HORA_EVAL_KEY"), help="API key (default: $HORA_EVAL_KEY)")
    ap.add_argument("--chunk", type=int, default=50, help="service path: series per request")
    ap.add_argument("--no-flip", action="store_true", help="onnx path: skip flip averaging")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--max-context", type=int, help="onnx path, diagnostics only: keep the last N points")
    ap.add_argument("--no-baselines", action="store_true")
    ap.add_argument("--baselines", nargs="+", default=list(DEFAULT_BASELINES), choices=list(BASELINES),
                    help="default: " + " ".join(DEFAULT_BASELINES) + " (AutoARIMA-exact only when named)")
    ap.add_argument("--refresh-baselines", action="store_true")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="processes for the statsforecast baselines (series are independent; default: every core)")
    ap.add_argument("--cached-only", action="store_true",
                    help="only the baselines already cached under .eval/baselines/; name the others as not computed")
    ap.add_argument("--interval-detail", action="store_true",
                    help="also print how the 80 %% intervals cover per series, and their widths against hora-1.0's")
    args = ap.parse_args()
    if args.service and not args.key:
        ap.error("--service needs --key")
    for set_name in args.sets:
        cfg = SETS[set_name]
        ids, series, target = read_m4(cfg["file"])
        results = {}
        snaive = mase_per_series(series, target, np.stack([np.resize(s[-cfg["m"]:], cfg["h"]) for s in series]), cfg["m"])
        t0 = time.time()
        if args.service:
            point, quant = service_forecast(args.service, args.key, ids, series, cfg, chunk=args.chunk)
            label = "hora-1.0 (service)"
        else:
            fc = OnnxForecaster(args.onnx, flip=not args.no_flip, threads=args.threads, max_context=args.max_context)
            point, quant = fc.forecast(series, cfg["h"])
            label = "hora-1.0 (onnx" + (", no flip)" if args.no_flip else ")")
        results[label] = (metrics(series, target, point, quant, cfg["m"], snaive)[0], time.time() - t0)
        quants = {label: quant}
        if not args.no_baselines:
            for name in args.baselines:
                if args.cached_only and not (CACHE / f"{set_name}-{name}.npz").exists():
                    print(f"{name} on {set_name}: not cached, not computed (--cached-only)", file=sys.stderr)
                    continue
                p, q, secs = baseline(name, set_name, ids, series, cfg, args.refresh_baselines, args.jobs)
                results[name] = (metrics(series, target, p, q, cfg["m"], snaive)[0], secs)
                quants[name] = q
        print(table(set_name, results) + "\n", flush=True)
        if args.interval_detail:
            print(interval_detail(set_name, target, quants, label) + "\n", flush=True)


if __name__ == "__main__":
    main()
