"""Small models written with plain torch.nn, shared by the backend's tests
(test_torch_backend.py) and the GPU check of its bundles
(scripts/torch-parts.py)."""

import math

import torch

nn = torch.nn
F = torch.nn.functional


class MLP(nn.Module):
    def __init__(self, hidden=64, inter=256):
        super().__init__()
        self.gate = nn.Linear(hidden, inter, bias=False)
        self.up = nn.Linear(hidden, inter, bias=False)
        self.down = nn.Linear(inter, hidden, bias=False)

    def forward(self, x):
        return self.down(F.silu(self.gate(x)) * self.up(x))


class Attention(nn.Module):
    """Multi-head attention of a decode step over a KV cache."""

    def __init__(self, hidden=64, heads=4):
        super().__init__()
        self.heads, self.head_dim = heads, hidden // heads
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.out = nn.Linear(hidden, hidden)

    def forward(self, x, k_cache, v_cache):
        q, k, v = self.qkv(x).split(self.heads * self.head_dim, dim=-1)
        shape = (self.heads, 1, self.head_dim)
        keys = torch.cat((k_cache, k.view(shape)), dim=1)
        values = torch.cat((v_cache, v.view(shape)), dim=1)
        scores = q.view(shape) @ keys.transpose(1, 2) / math.sqrt(self.head_dim)
        o = torch.softmax(scores, dim=-1) @ values
        return self.out(o.reshape(1, -1)), keys, values


class DecoderLayer(nn.Module):
    """A Qwen3-style decoder layer (decode step): RMSNorm, q/k norms, RoPE,
    attention over a KV cache with `kv_heads` key/value heads (grouped-query
    attention, repeated as Hugging Face's repeat_kv does: expand, then
    reshape), SwiGLU MLP, written with plain torch.nn."""

    def __init__(self, generator, hidden=64, heads=4, head_dim=16, inter=128,
                 kv_heads=None):
        super().__init__()
        self.heads, self.head_dim = heads, head_dim
        self.kv_heads = kv_heads or heads
        self.q = nn.Linear(hidden, heads * head_dim, bias=False)
        self.k = nn.Linear(hidden, self.kv_heads * head_dim, bias=False)
        self.v = nn.Linear(hidden, self.kv_heads * head_dim, bias=False)
        self.o = nn.Linear(heads * head_dim, hidden, bias=False)
        self.norm1 = nn.Parameter(torch.rand(hidden, generator=generator) + 0.5)
        self.norm2 = nn.Parameter(torch.rand(hidden, generator=generator) + 0.5)
        self.q_norm = nn.Parameter(torch.rand(head_dim, generator=generator) + 0.5)
        self.k_norm = nn.Parameter(torch.rand(head_dim, generator=generator) + 0.5)
        self.mlp = MLP(hidden, inter)

    @staticmethod
    def rms_norm(x, weight, eps=1e-6):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight

    @staticmethod
    def rope(x, cos, sin):
        half = x.shape[-1] // 2
        rotated = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
        return x * cos + rotated * sin

    def repeat_kv(self, x):
        kv_heads, length, dim = x.shape
        repeats = self.heads // kv_heads
        if repeats == 1:
            return x
        return x[:, None].expand(kv_heads, repeats, length, dim).reshape(
            kv_heads * repeats, length, dim)

    def forward(self, x, cos, sin, k_cache, v_cache):
        shape = (self.heads, 1, self.head_dim)
        kv_shape = (self.kv_heads, 1, self.head_dim)
        h = self.rms_norm(x, self.norm1)
        q = self.rope(self.rms_norm(self.q(h).view(shape), self.q_norm), cos, sin)
        k = self.rope(self.rms_norm(self.k(h).view(kv_shape), self.k_norm), cos, sin)
        keys = torch.cat((k_cache, k), dim=1)
        values = torch.cat((v_cache, self.v(h).view(kv_shape)), dim=1)
        scores = q @ self.repeat_kv(keys).transpose(1, 2) / math.sqrt(self.head_dim)
        o = (torch.softmax(scores, dim=-1) @ self.repeat_kv(values)).reshape(1, -1)
        x = x + self.o(o)
        return x + self.mlp(self.rms_norm(x, self.norm2)), keys, values


def _draws(generator, dtype):
    """randn and rand drawing from `generator`, in `dtype`."""
    def randn(*shape):
        return torch.randn(*shape, generator=generator).to(dtype)

    def rand(*shape):
        return torch.rand(*shape, generator=generator).to(dtype)

    return randn, rand


def models(generator, dtype=torch.float32):
    """(name, model, inputs) for each model, weights and inputs drawn from
    `generator`."""
    randn, rand = _draws(generator, dtype)

    torch.manual_seed(0)
    return [
        ("mlp", MLP().eval().to(dtype), [randn(4, 64)]),
        ("attention", Attention().eval().to(dtype), [randn(1, 64), randn(4, 7, 16), randn(4, 7, 16)]),
        ("decoder_layer", DecoderLayer(generator).eval().to(dtype),
         [randn(1, 64), rand(1, 16), rand(1, 16), randn(4, 7, 16), randn(4, 7, 16)]),
        ("decoder_layer_gqa", DecoderLayer(generator, kv_heads=2).eval().to(dtype),
         [randn(1, 64), rand(1, 16), rand(1, 16), randn(2, 7, 16), randn(2, 7, 16)]),
    ]


def qwen3_sized(generator, dtype=torch.float16):
    """The MLP and the decoder layer at Qwen3-8B's sizes (hidden 4096,
    intermediate 12288, 32 query heads and 8 key/value heads of 128) for a
    decode step over 1023 cached positions: for timing on a GPU, not for the
    CPU tests."""
    randn, rand = _draws(generator, dtype)

    torch.manual_seed(0)
    return [
        ("qwen3_mlp", MLP(4096, 12288).eval().to(dtype), [randn(1, 4096)]),
        ("qwen3_layer", DecoderLayer(generator, 4096, 32, 128, 12288, kv_heads=8)
         .eval().to(dtype),
         [randn(1, 4096), rand(1, 128), rand(1, 128), randn(8, 1023, 128) / 4,
          randn(8, 1023, 128) / 4]),
    ]
