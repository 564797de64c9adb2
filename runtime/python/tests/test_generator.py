"""The NumPy input generator against the vectors of docs/Bundle.md."""

import math

import pytest

np = pytest.importorskip("numpy")
import mirage_baselines as mb  # noqa: E402

# (seed, input index, element index, float64 value, f16 bits)
VECTORS = [
    (1, 0, 0, -0.3167373786664165, 0xB511),
    (1, 0, 1, -0.12043012127215436, 0xAFB5),
    (1, 2, 12345, -0.5811760310424727, 0xB8A6),
    (7, 1, 0, 0.3294288528855087, 0x3545),
]


@pytest.mark.parametrize("seed,index,element,value,bits", VECTORS)
def test_vectors_one_element(seed, index, element, value, bits):
    x = mb.draw_float64(seed, index, 1, -1.0, 1.0, start=element)
    assert x[0] == value
    assert int(mb.round_to_dtype(x, "f16").view(np.uint16)[0]) == bits


@pytest.mark.parametrize("seed,index,element,value,bits", VECTORS)
def test_vectors_in_a_whole_input(seed, index, element, value, bits):
    shape = (3, 5000)  # row-major element 12345 is [2, 2345]
    storage = mb.draw_input({"kind": "uniform", "seed": seed, "low": -1.0,
                             "high": 1.0}, index, shape, "f16")
    assert storage.shape == shape
    assert int(storage.reshape(-1).view(np.uint16)[element]) == bits


def test_scaled_input():
    """A weight of fan-in 12288 (the C++ test ScaledVector has the same)."""
    generator = {"kind": "uniform", "seed": 7, "low": -1.0, "high": 1.0,
                 "scales": [1.0, 1.0 / math.sqrt(12288.0)]}
    storage = mb.draw_input(generator, 1, (1,), "f32")
    assert storage.astype(np.float64)[0] == np.float32(0.0029718099514418456)
    assert int(mb.draw_input(generator, 1, (1,), "f16").view(np.uint16)[0]) == 0x1A16
    assert mb.draw_input(generator, 0, (1,), "f32")[0] == np.float32(mb.draw_float64(7, 0, 1)[0])


def test_chunks_do_not_change_values(monkeypatch):
    generator = {"kind": "uniform", "seed": 3, "low": -2.0, "high": 5.0}
    whole = mb.draw_input(generator, 1, (1000,), "f32")
    monkeypatch.setattr(mb, "_CHUNK", 64)
    assert np.array_equal(mb.draw_input(generator, 1, (1000,), "f32"), whole)


def test_range_and_spread():
    x = mb.draw_float64(5, 0, 100000, low=2.0, high=3.0)
    assert x.min() >= 2.0 and x.max() < 3.0
    assert abs(x.mean() - 2.5) < 0.01


def test_element_index_past_32_bits():
    """Elements are uint64 all the way: no overflow at 2^32."""
    start = (1 << 32) - 2
    x = mb.draw_float64(1, 0, 4, start=start)
    assert [mb.draw_float64(1, 0, 1, start=start + k)[0] for k in range(4)] == list(x)


def test_unknown_generator_kind():
    with pytest.raises(ValueError, match="normal"):
        mb.draw_input({"kind": "normal", "seed": 1}, 0, (2,), "f16")


def bf16_bits(values):
    return [int(b) for b in mb.round_to_bf16_bits(np.array(values, dtype=np.float64))]


def test_bf16_exact_and_ties_to_even():
    assert bf16_bits([1.0, -2.0, 0.0, -0.0]) == [0x3F80, 0xC000, 0x0000, 0x8000]
    # 1 + 2^-8 lies halfway between 0x3F80 and 0x3F81: even wins.
    assert bf16_bits([1 + 2**-8, 1 + 3 * 2**-8]) == [0x3F80, 0x3F82]


def test_bf16_rounds_once_from_float64():
    """Just above/below a bf16 tie, by less than a float32 half-ulp.

    Rounding to float32 first would land exactly on the tie and go to even.
    """
    above, below = 1 + 2**-8 + 2**-30, 1 + 2**-8 - 2**-30
    assert bf16_bits([above, -above]) == [0x3F81, 0xBF81]
    assert bf16_bits([below, -below]) == [0x3F80, 0xBF80]


def test_bf16_specials():
    assert bf16_bits([math.inf, -math.inf, 1e300, 2**-130, 2**-140]) == [
        0x7F80, 0xFF80, 0x7F80, 0x0008, 0x0000]
    assert (bf16_bits([math.nan])[0] & 0x7FFF) > 0x7F80


def test_bf16_matches_float64_nearest_on_random_values():
    """Against a direct definition: the nearer of the two bracketing bf16."""
    x = mb.draw_float64(11, 0, 20000, low=-3.0, high=3.0)
    bits = mb.round_to_bf16_bits(x)
    got = mb.bf16_bits_to_float64(bits)
    down = mb.bf16_bits_to_float64(
        (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16))
    ulp = 2.0 ** (np.floor(np.log2(np.abs(down))) - 7)
    up = down + np.sign(x) * ulp
    nearest = np.where(np.abs(x - down) <= np.abs(up - x), down, up)
    assert np.all(np.abs(got - x) <= np.abs(nearest - x))


def test_f16_and_f32_storage():
    x = np.array([1 / 3, -65519.0, 1e-8])
    assert mb.round_to_dtype(x, "f16").dtype == np.float16
    assert mb.round_to_dtype(x, "f32").dtype == np.float32
    assert mb.storage_to_float64(mb.round_to_dtype(x, "f16"), "f16")[1] == -65504.0
    assert mb.storage_to_float64(mb.round_to_dtype(x, "bf16"), "bf16")[0] == 0.333984375
