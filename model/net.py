"""hora-1.0 network: per-series scaling, patch encoder, multi-step quantile head (one torch module).

The same module is trained and exported, so scaling happens in exactly one place: inside the graph.
Inputs are `context` [B, T] and `mask` [B, T] (1 observed, 0 missing or padding, context 0 there),
T a multiple of `patch`. Output is `quantiles` [B, horizon, n_quantiles] in the input's scale.
"""
from __future__ import annotations

import math

import torch
from torch import nn

QUANTILES = (0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99)
Z_CLIP = 50.0  # scaled values are clipped: one wild point must not blow up the activations


class Scaler(nn.Module):
    """Mask-aware scaling: location = the last observed value, scale = the context's standard
    deviation with a floor relative to the level (constants and all-zero series stay finite).
    Anchoring on the last value makes "stay near where the series is" the easy default, which a
    mean-centred input got wrong by a sizeable fraction of a standard deviation on long trending
    series (M4 Weekly at 1k steps)."""

    def forward(self, context, mask):
        n = mask.sum(dim=1, keepdim=True)
        n_safe = torch.clamp(n, min=1.0)
        mean = (context * mask).sum(dim=1, keepdim=True) / n_safe
        centred = (context - mean) * mask
        std = torch.sqrt((centred * centred).sum(dim=1, keepdim=True) / n_safe)
        level = (context.abs() * mask).sum(dim=1, keepdim=True) / n_safe
        scale = std + 1e-4 * level + 1e-30
        # One-hot of the last observed point: no observed point after it (total - cumsum == 0).
        after = n - torch.cumsum(mask, dim=1)
        last_hot = mask * (after < 0.5).to(mask.dtype)
        last = (context * last_hot).sum(dim=1, keepdim=True)
        z = torch.clamp((context - last) / scale, -Z_CLIP, Z_CLIP) * mask
        return z, last, scale


class Block(nn.Module):
    """Pre-norm transformer block with hand-written attention (exports cleanly, masks exactly)."""

    def __init__(self, d, heads, ff):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.norm2 = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, ff), nn.GELU(), nn.Linear(ff, d))

    def forward(self, x, key_bias, keep_from=None):
        """`keep_from`: return only the tokens from that position on. They still attend to every
        token, and each row of the rest is its own, so they are the same values the whole block
        would give, without the work on tokens nobody reads."""
        b, n, d = x.shape
        h = self.heads
        q, k, v = self.qkv(self.norm1(x)).reshape(b, n, 3, h, d // h).permute(2, 0, 3, 1, 4)
        if keep_from is not None:
            q, x = q[:, :, keep_from:], x[:, keep_from:]
        att = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d // h) + key_bias
        out = torch.matmul(torch.softmax(att, dim=-1), v).transpose(1, 2).reshape(b, -1, d)
        x = x + self.proj(out)
        return x + self.ff(self.norm2(x))


class HoraNet(nn.Module):
    def __init__(self, patch=32, d=128, layers=4, heads=4, ff=512, n_query=2, horizon=64,
                 max_patches=128, pos_clamp=64, skip_len=256):
        super().__init__()
        self.patch, self.horizon, self.nq = patch, horizon, len(QUANTILES)
        self.pos_clamp, self.skip_len = pos_clamp, skip_len
        self.scaler = Scaler()
        self.embed = nn.Sequential(nn.Linear(2 * patch, d), nn.GELU(), nn.Linear(d, d))
        self.embed_skip = nn.Linear(2 * patch, d)
        # Positions count back from the last patch, so left padding never moves a token.
        self.pos = nn.Embedding(max_patches, d)
        self.query = nn.Parameter(torch.randn(n_query, d) * 0.02)
        self.blocks = nn.ModuleList([Block(d, heads, ff) for _ in range(layers)])
        self.norm = nn.LayerNorm(d)
        self.head = nn.Sequential(nn.Linear(n_query * d, 4 * d), nn.GELU(), nn.Linear(4 * d, horizon * self.nq))
        # Linear shortcut from the last `skip_len` scaled points to the median path: seasonal copies
        # (lag 24, lag 168) are linear, so this learns them early.
        self.skip = nn.Linear(2 * skip_len, horizon)

    def forward(self, context, mask, queries_only=False):
        """`queries_only` (the exported graph): the last block computes the query tokens alone, the
        only ones the head reads. Same values; about a sixth less work per forecast. Training keeps
        the whole last block, so a rerun of the recipe repeats the published weights bit for bit."""
        b, t = context.shape
        z, mean, scale = self.scaler(context, mask)
        n = t // self.patch
        zp = z.reshape(b, n, self.patch)
        mp = mask.reshape(b, n, self.patch)
        tokens_in = torch.cat([zp, mp], dim=-1)
        x = self.embed(tokens_in) + self.embed_skip(tokens_in)
        idx = torch.clamp(torch.arange(n - 1, -1, -1, device=context.device), max=self.pos_clamp)
        x = x + self.pos(idx)[None]
        x = torch.cat([x, self.query[None].expand(b, -1, -1)], dim=1)
        # Patches with no observed point are not attended to (exactly 0 weight after softmax), so a
        # series' forecast does not depend on how much padding its batch needed.
        observed = (mp.sum(dim=-1) > 0).to(context.dtype)
        observed = torch.cat([observed, torch.ones_like(observed[:, :1]).expand(-1, self.query.shape[0])], dim=1)
        key_bias = ((observed - 1.0) * 1e9)[:, None, None, :]
        for i, blk in enumerate(self.blocks):
            last = i == len(self.blocks) - 1
            x = blk(x, key_bias, keep_from=n if queries_only and last else None)
        qtok = self.norm(x[:, -self.query.shape[0]:, :]).reshape(b, -1)
        out = self.head(qtok).reshape(b, self.horizon, self.nq)
        # The shortcut sees the last skip_len points; shorter contexts are left-padded with zeros.
        tail_z = nn.functional.pad(z, (self.skip_len, 0))[:, -self.skip_len:]
        tail_m = nn.functional.pad(mask, (self.skip_len, 0))[:, -self.skip_len:]
        out = out + self.skip(torch.cat([tail_z, tail_m], dim=-1))[:, :, None]
        return out, mean, scale

    def forecast(self, context, mask):
        """Quantiles in the original scale: what the ONNX graph returns."""
        out, mean, scale = self.forward(context, mask, queries_only=True)
        return mean[:, :, None] + scale[:, :, None] * out


class Exported(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, context, mask):
        return self.net.forecast(context, mask)


def pinball(pred_z, target_z):
    """Mean pinball loss over quantiles, steps and series (all in scaled units)."""
    q = torch.tensor(QUANTILES, dtype=pred_z.dtype, device=pred_z.device)[None, None, :]
    diff = target_z[:, :, None] - pred_z
    return torch.maximum(q * diff, (q - 1) * diff).mean()
