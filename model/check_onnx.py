"""Check models/hora-1.0.onnx against the serving contract; exits non-zero on the first violation.

    model/.venv/bin/python model/check_onnx.py [path]
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort

EXPECTED = {
    "hora.name": "hora-1.0",
    "hora.quantiles": "0.01,0.05,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,0.95,0.99",
    "hora.min_context": "16",
    "hora.max_context": "4096",
    "hora.max_horizon": "1024",
}
REQUIRED = ("hora.native_horizon", "hora.context_multiple", "hora.recipe_hash")


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def left_pad(series_list, multiple):
    """What serving does: left-pad every series of a batch to one length, a multiple of `multiple`."""
    t = max(len(s) for s in series_list)
    t = -(-t // multiple) * multiple
    ctx = np.zeros((len(series_list), t), np.float32)
    mask = np.zeros((len(series_list), t), np.float32)
    for i, s in enumerate(series_list):
        s = np.asarray(s, np.float64)
        ok = np.isfinite(s)
        ctx[i, t - len(s):] = np.where(ok, s, 0.0)
        mask[i, t - len(s):] = ok
    return ctx, mask


def main():
    path = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "models" / "hora-1.0.onnx")
    size = path.stat().st_size
    if size >= 30 * 1024 * 1024:
        fail(f"{path} is {size} bytes, over 30 MB")
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    meta = sess.get_modelmeta().custom_metadata_map
    for k, v in EXPECTED.items():
        if meta.get(k) != v:
            fail(f"metadata {k} = {meta.get(k)!r}, expected {v!r}")
    for k in REQUIRED:
        if not meta.get(k):
            fail(f"metadata {k} missing")
    horizon, multiple = int(meta["hora.native_horizon"]), int(meta["hora.context_multiple"])
    if 4096 % multiple:
        fail("context_multiple does not divide max_context 4096")
    ins = {i.name: i for i in sess.get_inputs()}
    outs = {o.name: o for o in sess.get_outputs()}
    for name in ("context", "mask"):
        if name not in ins or ins[name].type != "tensor(float)" or len(ins[name].shape) != 2:
            fail(f"input {name} must be float32 [batch, time], got {ins.get(name)}")
        if all(isinstance(d, int) for d in ins[name].shape):
            fail(f"input {name} has no dynamic axes")
    q = outs.get("quantiles")
    if q is None or q.type != "tensor(float)" or len(q.shape) != 3 or q.shape[1:] != [horizon, 13]:
        fail(f"output quantiles must be float32 [batch, {horizon}, 13], got {q and q.shape}")

    rng = np.random.default_rng(0)
    t = np.arange(700)
    sine = 100 + 10 * np.sin(2 * np.pi * t / 24)
    gappy = sine.copy()
    gappy[300:420] = np.nan
    gappy[-5:] = np.nan
    cases = {
        "sine": sine, "gappy": gappy, "constant": np.full(100, 5.0), "zeros": np.zeros(64),
        "spike": np.r_[np.zeros(50), 1.0, np.zeros(50)], "huge": 1e12 * (1 + 0.01 * rng.normal(size=200)),
        "tiny": 1e-9 * (1 + 0.1 * rng.normal(size=200)), "short16": rng.normal(size=16),
        "long4096": rng.normal(size=4096).cumsum(),
    }
    for name, s in cases.items():
        ctx, mask = left_pad([s], multiple)
        (out,) = sess.run(["quantiles"], {"context": ctx, "mask": mask})
        if out.shape != (1, horizon, 13) or not np.isfinite(out).all():
            fail(f"{name}: shape {out.shape} or non-finite values")
        med, obs = np.median(out[0, :, 6]), np.nanmean(s)
        spread = np.nanstd(s) + 1e-3 * abs(obs) + 1e-30
        if abs(med - obs) > 20 * spread + 1e-6 * abs(obs):
            fail(f"{name}: median {med:g} is not in the scale of the input (mean {obs:g})")
    # Batching: a series alone and inside a padded batch gives the same forecast.
    batch = [sine] + [rng.normal(size=n) for n in rng.integers(16, 2000, 10)]
    ctx, mask = left_pad(batch, multiple)
    (many,) = sess.run(["quantiles"], {"context": ctx, "mask": mask})
    ctx1, mask1 = left_pad([sine], multiple)
    (one,) = sess.run(["quantiles"], {"context": ctx1, "mask": mask1})
    err = np.abs(many[0] - one[0]).max() / (np.abs(one[0]).max() + 1e-9)
    if err > 1e-4:
        fail(f"batching changes a series' forecast (relative difference {err:g})")
    print(f"OK: {path.name} {size / 1e6:.1f} MB, native_horizon {horizon}, context_multiple {multiple}, "
          f"recipe {meta['hora.recipe_hash']}, batch-invariance error {err:.1e}")


if __name__ == "__main__":
    main()
