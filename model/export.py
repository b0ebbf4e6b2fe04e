"""Export a trained HoraNet to ONNX with the metadata the serving addon reads as its source of truth.

    model/.venv/bin/python model/export.py [--checkpoint model/runs/checkpoint.pt]
    model/.venv/bin/python model/export.py --stamp models/hora-1.0.onnx   # calibration only
    model/.venv/bin/python model/export.py --weights-from models/hora-1.0.onnx  # same weights, current graph code

`--weights-from` reads the weights of an exported file back into the network and exports them
again with the current code (a change to the graph alone needs no retraining); the new file must
answer exactly as the old one, or nothing is written over it.

The interval calibration (`hora.spread_scale`) comes from calibration.json, which realcheck.py
writes from real series after training; `--stamp` rewrites that one property of an exported file
and leaves the graph and the rest of its metadata as they are.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import tempfile
from pathlib import Path

import onnx
import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from net import QUANTILES, Exported, HoraNet  # noqa: E402

RECIPE_FILES = ("config.json", "generator.py", "net.py", "train.py")
CALIBRATION = HERE / "calibration.json"


def spread_scale():
    """`family=factor` pairs for the families whose spreads serving rescales ("" for none)."""
    scale = json.loads(CALIBRATION.read_text())["spread_scale"] if CALIBRATION.exists() else {}
    return ",".join(f"{family}={factor:g}" for family, factor in sorted(scale.items()))


def recipe_hash(cfg, steps, long_steps):
    """sha256 over the config (with the step counts used) and the code that makes the data and model."""
    h = hashlib.sha256()
    h.update(json.dumps({**cfg, "steps_used": steps, "long_steps_used": long_steps}, sort_keys=True).encode())
    for name in RECIPE_FILES[1:]:
        h.update(name.encode())
        h.update((HERE / name).read_bytes())
    return h.hexdigest()[:16]


def metadata(cfg, steps, long_steps):
    return {
        "hora.name": "hora-1.0",
        "hora.quantiles": ",".join(f"{q:g}" for q in QUANTILES),
        "hora.min_context": "16",
        "hora.max_context": "4096",
        "hora.max_horizon": "1024",
        "hora.native_horizon": str(cfg["model"]["horizon"]),
        "hora.context_multiple": str(cfg["model"]["patch"]),
        "hora.recipe_hash": recipe_hash(cfg, steps, long_steps),
        "hora.train_steps": str(steps + long_steps),
        "hora.spread_scale": spread_scale(),
    }


def export(net, cfg, out_path, steps, long_steps):
    net.eval()
    wrapper = Exported(net)
    t = 8 * cfg["model"]["patch"]
    ctx = torch.randn(3, t)
    mask = torch.ones(3, t)
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    with torch.no_grad():
        torch.onnx.export(
            wrapper, (ctx, mask), str(out_path), input_names=["context", "mask"], output_names=["quantiles"],
            dynamic_axes={"context": {0: "batch", 1: "time"}, "mask": {0: "batch", 1: "time"},
                          "quantiles": {0: "batch"}},
            opset_version=17, dynamo=False,
        )
    model = onnx.load(str(out_path))
    del model.metadata_props[:]
    for k, v in metadata(cfg, steps, long_steps).items():
        model.metadata_props.add(key=k, value=v)
    model.doc_string = "hora-1.0: patch-transformer quantile forecaster trained on synthetic series"
    onnx.checker.check_model(model)
    onnx.save(model, str(out_path))
    parity(wrapper, out_path, cfg["model"]["patch"])
    print(f"exported {out_path} ({out_path.stat().st_size / 1e6:.1f} MB)", flush=True)


def probes(patch):
    """Inputs the checks run on: 1 to 50 rows of 32 to 4,096 points, a missing tenth of the points
    and the first row's leading third masked (left padding)."""
    import numpy as np
    rng = np.random.default_rng(0)
    for rows, n in ((1, 1), (5, 17), (50, 16), (4, 128)):
        t = n * patch
        mask = (rng.random((rows, t)) > 0.1).astype(np.float32)
        mask[0, : t // 3] = 0.0
        ctx = (rng.standard_normal((rows, t)).cumsum(axis=1) * 100 + 1000).astype(np.float32) * mask
        yield ctx, mask


def parity(wrapper, path, patch):
    """The exported graph must match torch at other batch sizes and lengths, with gaps and padding."""
    import numpy as np
    import onnxruntime as ort
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    for ctx, mask in probes(patch):
        with torch.no_grad():
            ref = wrapper(torch.from_numpy(ctx), torch.from_numpy(mask)).numpy()
        got = sess.run(["quantiles"], {"context": ctx, "mask": mask})[0]
        err = np.abs(got - ref).max() / (np.abs(ref).max() + 1e-9)
        if not err < 1e-4:
            raise SystemExit(f"ONNX export differs from torch at batch {len(ctx)}, time {ctx.shape[1]}: {err:g}")


def module_path(node_name):
    """`/blocks.0/qkv/MatMul` -> `blocks.0.qkv`; a scope inside a Sequential repeats its parent's
    name (`/blocks.0/ff/ff.0/MatMul` -> `blocks.0.ff.0`)."""
    path = ""
    for scope in node_name.strip("/").split("/")[:-1]:
        parent, _, last = path.rpartition(".") if "." in path else ("", "", path)
        if last and scope.startswith(last + "."):
            path = f"{parent}.{scope}" if parent else scope
        else:
            path = f"{path}.{scope}" if path else scope
    return path


def weights_from_onnx(net, path):
    """The network's weights from a file this script exported: `net.*` initializers by name, and
    the constant-folded ones (a Linear's transposed weight, the query tokens) by the node that
    reads them (`/blocks.2/qkv/MatMul` -> `blocks.2.qkv.weight`)."""
    from onnx import numpy_helper
    graph = onnx.load(str(path)).graph
    readers = {}
    for node in graph.node:
        for name in node.input:
            readers.setdefault(name, node)
    state = {}
    for init in graph.initializer:
        value = torch.from_numpy(numpy_helper.to_array(init).copy())
        reader = readers.get(init.name)
        if init.name.startswith("net."):
            state[init.name[len("net."):]] = value
        elif reader is not None and reader.op_type == "MatMul":
            state[f"{module_path(reader.name)}.weight"] = value.T.contiguous()
        elif reader is not None and reader.op_type == "Expand":
            state["query"] = value[0]
    net.load_state_dict(state)  # strict: every parameter found, nothing left over
    return net


def same_answers(old, new, patch):
    """Every quantile of `new` equals `old`'s, bit for bit, on the probes."""
    import numpy as np
    import onnxruntime as ort
    a, b = (ort.InferenceSession(str(p), providers=["CPUExecutionProvider"]) for p in (old, new))
    for ctx, mask in probes(patch):
        feed = {"context": ctx, "mask": mask}
        if not np.array_equal(a.run(["quantiles"], feed)[0], b.run(["quantiles"], feed)[0]):
            raise SystemExit(f"{new} does not answer as {old} at {len(ctx)} rows of {ctx.shape[1]} points")


def stamp(path):
    """Writes calibration.json into an exported file's `hora.spread_scale`, nothing else."""
    model, scale = onnx.load(str(path)), spread_scale()
    kept = [(p.key, p.value) for p in model.metadata_props if p.key != "hora.spread_scale"]
    del model.metadata_props[:]
    for k, v in [*kept, ("hora.spread_scale", scale)]:
        model.metadata_props.add(key=k, value=v)
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    print(f"stamped {path}: hora.spread_scale = {scale!r}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stamp", metavar="ONNX", help="only rewrite this file's hora.spread_scale")
    ap.add_argument("--weights-from", metavar="ONNX", help="re-export this file's weights with the current graph code")
    ap.add_argument("--config", default=str(HERE / "config.json"))
    ap.add_argument("--checkpoint", default=str(HERE / "runs" / "checkpoint.pt"))
    ap.add_argument("--steps", type=int, help="first-phase step count the checkpoint was trained for")
    ap.add_argument("--long-steps", type=int, help="long-context step count the checkpoint was trained for")
    ap.add_argument("--out", default=str(HERE.parent / "models" / "hora-1.0.onnx"))
    args = ap.parse_args()
    if args.stamp:
        return stamp(args.stamp)
    cfg = json.loads(Path(args.config).read_text())
    net = HoraNet(**cfg["model"])
    steps = args.steps or cfg["train"]["steps"]
    long_steps = cfg["long_context"]["steps"] if args.long_steps is None else args.long_steps
    if args.weights_from:
        weights_from_onnx(net, args.weights_from)
        # Exported beside, compared, then copied: --out may be the file the weights came from.
        with tempfile.TemporaryDirectory() as tmp:
            fresh = Path(tmp) / "fresh.onnx"
            export(net, cfg, fresh, steps, long_steps)
            same_answers(args.weights_from, fresh, cfg["model"]["patch"])
            shutil.copyfile(fresh, args.out)
        print(f"wrote {args.out}: the same answers as {args.weights_from}", flush=True)
        return
    net.load_state_dict(torch.load(args.checkpoint))
    export(net, cfg, args.out, steps, long_steps)


if __name__ == "__main__":
    main()
