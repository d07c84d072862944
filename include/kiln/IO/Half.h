//===- Half.h - IEEE binary16 <-> binary32 conversions ---------*- C++ -*-===//
//
// Bit-exact conversions used by the weight writer, the reference and the
// runtime, so that every component rounds the same way: round to nearest,
// ties to even; overflow goes to infinity; subnormals, infinities and NaNs
// (quiet, payload kept where it fits) are handled.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IO_HALF_H
#define KILN_IO_HALF_H

#include <cstdint>
#include <cstring>

namespace kiln::io {

inline uint32_t floatToBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

inline float bitsToFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

/// f32 -> f16 bits, round to nearest even.
inline uint16_t floatToHalfBits(float value) {
  const uint32_t bits = floatToBits(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t exponent = (bits >> 23) & 0xffu;
  uint32_t mantissa = bits & 0x7fffffu;

  if (exponent == 0xffu) { // inf or NaN; NaN stays NaN (quiet bit set).
    if (mantissa == 0)
      return static_cast<uint16_t>(sign | 0x7c00u);
    return static_cast<uint16_t>(sign | 0x7e00u | (mantissa >> 13));
  }

  // Unbiased exponent, rebiased for half.
  const int32_t halfExponent = static_cast<int32_t>(exponent) - 127 + 15;
  if (halfExponent >= 0x1f) // too large: infinity
    return static_cast<uint16_t>(sign | 0x7c00u);

  if (halfExponent <= 0) {
    // Subnormal half (or zero). Below half the smallest subnormal -> zero.
    if (halfExponent < -10)
      return sign;
    mantissa |= 0x800000u; // implicit leading one
    const uint32_t shift = static_cast<uint32_t>(14 - halfExponent);
    uint32_t halfMantissa = mantissa >> shift;
    const uint32_t remainder = mantissa & ((1u << shift) - 1u);
    const uint32_t halfway = 1u << (shift - 1);
    if (remainder > halfway || (remainder == halfway && (halfMantissa & 1u)))
      ++halfMantissa; // may carry into the smallest normal: still correct
    return static_cast<uint16_t>(sign | halfMantissa);
  }

  uint32_t halfBits = (static_cast<uint32_t>(halfExponent) << 10) |
                      (mantissa >> 13);
  const uint32_t remainder = mantissa & 0x1fffu;
  if (remainder > 0x1000u || (remainder == 0x1000u && (halfBits & 1u)))
    ++halfBits; // a carry may reach the exponent and give infinity: correct
  return static_cast<uint16_t>(sign | halfBits);
}

/// f16 bits -> f32 (exact).
inline float halfBitsToFloat(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1fu;
  uint32_t mantissa = half & 0x3ffu;

  if (exponent == 0x1fu) // inf or NaN
    return bitsToFloat(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {
    if (mantissa == 0)
      return bitsToFloat(sign);
    // Subnormal: normalise.
    int32_t e = -1;
    do {
      ++e;
      mantissa <<= 1;
    } while ((mantissa & 0x400u) == 0);
    mantissa &= 0x3ffu;
    return bitsToFloat(sign | (static_cast<uint32_t>(127 - 15 - e) << 23) |
                       (mantissa << 13));
  }
  return bitsToFloat(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}

/// Rounds an f32 to the nearest f16 value and back (what an f16 store keeps).
inline float roundToHalf(float value) {
  return halfBitsToFloat(floatToHalfBits(value));
}

} // namespace kiln::io

#endif // KILN_IO_HALF_H
