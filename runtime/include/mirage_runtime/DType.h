//===- DType.h - Element types of bundle buffers ----------------*- C++ -*-===//
//
// Part of the Mirage MLIR project.
//
// The element types a bundle's buffers may have (docs/Bundle.md) and how one
// element is stored: little-endian IEEE bits, like the GPU. Header-only and
// standard-library-only: the compiler uses it too.
//
//===----------------------------------------------------------------------===//

#ifndef MIRAGE_RUNTIME_DTYPE_H
#define MIRAGE_RUNTIME_DTYPE_H

#include "mirage_runtime/Half.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

namespace mirage::runtime {

enum class DType { F16, BF16, F32 };

inline std::optional<DType> parseDType(std::string_view name) {
  if (name == "f16")
    return DType::F16;
  if (name == "bf16")
    return DType::BF16;
  if (name == "f32")
    return DType::F32;
  return std::nullopt;
}

inline const char *dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::F32:
    return "f32";
  }
  return "?";
}

inline size_t dtypeSize(DType dtype) { return dtype == DType::F32 ? 4 : 2; }

/// `value` rounded to nearest even in `dtype`, as the bits stored in memory.
inline uint32_t encodeElement(double value, DType dtype) {
  switch (dtype) {
  case DType::F16:
    return doubleToF16(value);
  case DType::BF16:
    return doubleToBF16(value);
  case DType::F32: {
    float narrow = float(value); // rounds to nearest even
    uint32_t bits;
    std::memcpy(&bits, &narrow, sizeof(bits));
    return bits;
  }
  }
  return 0;
}

/// The value of the element with bits `bits` (exact).
inline double decodeElement(uint32_t bits, DType dtype) {
  switch (dtype) {
  case DType::F16:
    return f16ToDouble(uint16_t(bits));
  case DType::BF16:
    return bf16ToDouble(uint16_t(bits));
  case DType::F32: {
    float value;
    std::memcpy(&value, &bits, sizeof(value));
    return value;
  }
  }
  return 0;
}

/// `value` rounded to `dtype`, back as a double.
inline double roundToDType(double value, DType dtype) {
  return decodeElement(encodeElement(value, dtype), dtype);
}

// Elements are stored in host byte order, which is little-endian on every
// host that drives an NVIDIA GPU through this runtime.
inline void storeElement(uint32_t bits, DType dtype, void *dst) {
  if (dtype == DType::F32) {
    std::memcpy(dst, &bits, 4);
    return;
  }
  uint16_t narrow = uint16_t(bits);
  std::memcpy(dst, &narrow, 2);
}

inline uint32_t loadElement(const void *src, DType dtype) {
  if (dtype == DType::F32) {
    uint32_t bits;
    std::memcpy(&bits, src, 4);
    return bits;
  }
  uint16_t narrow;
  std::memcpy(&narrow, src, 2);
  return narrow;
}

} // namespace mirage::runtime

#endif // MIRAGE_RUNTIME_DTYPE_H
