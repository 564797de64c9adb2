//===- InputGenerator.h - The bundle input generator ------------*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
// The deterministic inputs of docs/Bundle.md ("Inputs"), so that the runtime
// and the compiler's float64 interpreter see the same numbers. Header-only
// and standard-library-only: the compiler includes it too.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_RUNTIME_INPUTGENERATOR_H
#define MIRAGE_RUNTIME_INPUTGENERATOR_H

#include "mirage_runtime/DType.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mirage::runtime {

inline uint64_t splitMix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// The "uniform" generator: element `e` of input `i` is uniform in
/// [low, high), times the input's scale, before rounding to the buffer's
/// dtype.
struct UniformGenerator {
  uint64_t seed = 1;
  double low = -1.0;
  double high = 1.0;
  /// Per input position; positions past the end have scale 1. The bundler
  /// scales weights by their fan-in so that model-sized programs stay in
  /// f16's range.
  std::vector<double> scales;

  double scale(uint64_t input) const {
    return input < scales.size() ? scales[input] : 1.0;
  }

  /// key(i) of input position `input`.
  uint64_t key(uint64_t input) const {
    return splitMix64(seed ^ splitMix64(input + 1));
  }

  /// scale(i) * x(i, e) in float64, before rounding to a dtype.
  double value(uint64_t input, uint64_t element) const {
    return valueWithKey(key(input), scale(input), element);
  }

  double valueWithKey(uint64_t inputKey, double inputScale,
                      uint64_t element) const {
    uint64_t u = splitMix64(inputKey + element);
    double unit = double(u >> 11) * 0x1p-53;
    // volatile keeps each product rounded on its own: a fused multiply-add
    // (which GCC forms across statements on FMA targets) would change the
    // last bit for some low/high.
    volatile double scaled = (high - low) * unit;
    volatile double x = low + scaled;
    return inputScale * x;
  }

  /// Writes the `count` elements of input position `input` in `dtype` to
  /// `dst` (count * dtypeSize(dtype) bytes).
  void fill(uint64_t input, DType dtype, size_t count, void *dst) const {
    uint64_t inputKey = key(input);
    double inputScale = scale(input);
    size_t size = dtypeSize(dtype);
    auto *bytes = static_cast<unsigned char *>(dst);
    for (size_t e = 0; e < count; ++e)
      storeElement(encodeElement(valueWithKey(inputKey, inputScale, e), dtype),
                   dtype, bytes + e * size);
  }

  /// Elements [begin, end) of input position `input` after rounding to
  /// `dtype`, as the float64 interpreter must see them, into `dst[0, end -
  /// begin)`. Ranges are independent, so callers may draw them in parallel.
  void values(uint64_t input, DType dtype, size_t begin, size_t end,
              double *dst) const {
    uint64_t inputKey = key(input);
    double inputScale = scale(input);
    for (size_t e = begin; e < end; ++e)
      dst[e - begin] =
          roundToDType(valueWithKey(inputKey, inputScale, e), dtype);
  }

  /// The `count` elements of input position `input` after rounding to
  /// `dtype`.
  std::vector<double> values(uint64_t input, DType dtype, size_t count) const {
    std::vector<double> result(count);
    values(input, dtype, 0, count, result.data());
    return result;
  }
};

} // namespace mirage::runtime

#endif // MIRAGE_RUNTIME_INPUTGENERATOR_H
