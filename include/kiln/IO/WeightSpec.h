//===- WeightSpec.h - Which tensors a config's weights hold ----*- C++ -*-===//
//
// The single list of tensors per docs/weights.md, used by the synthetic
// generator (what to write), the reference and the runtime (what to read) and
// checkWeights (what a file must hold).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_IO_WEIGHTSPEC_H
#define KILN_IO_WEIGHTSPEC_H

#include "kiln/IO/Error.h"
#include "kiln/IO/ModelConfig.h"
#include "kiln/IO/Safetensors.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::io {

enum class WeightFormat { F16, Q8_2F };

const char *weightFormatName(WeightFormat format); // "f16" | "q8_2f"
Expected<WeightFormat> parseWeightFormat(const std::string &text);

/// Metadata keys written into and read from `__metadata__`.
inline constexpr const char *kMetadataFormatKey = "kiln.format";
inline constexpr const char *kMetadataFamilyKey = "kiln.family";

/// How a logical weight is stored.
enum class WeightKind {
  Matrix,    // f16: one F16 tensor; q8_2f: .q (I8), .row_scale, .col_scale (F32)
  Vector,    // F32 in both formats (norms, biases, taps, sinks, centres, ...)
  Embedding, // F16 in both formats (gathered, not multiplied)
};

/// One weight as the model sees it, before the format splits matrices.
struct LogicalWeight {
  std::string name;
  WeightKind kind = WeightKind::Vector;
  std::vector<int64_t> shape;
  int64_t elementCount() const { return shapeElementCount(shape); }
};

/// Which stored piece of a logical weight a tensor is.
enum class TensorPart { Whole, Codes, RowScale, ColScale };

/// One tensor of the file.
struct TensorSpec {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::string logicalName; // the LogicalWeight it stores
  TensorPart part = TensorPart::Whole;

  int64_t elementCount() const { return shapeElementCount(shape); }
  uint64_t byteSize() const {
    return static_cast<uint64_t>(elementCount()) * dtypeSize(dtype);
  }
};

/// Every logical weight of a (valid) config, in file order.
std::vector<LogicalWeight> logicalWeights(const ModelConfig &config);

/// Every tensor of the file for `format`, in file order.
std::vector<TensorSpec> expectedTensors(const ModelConfig &config,
                                        WeightFormat format);

/// Parameters of the model (elements of the logical weights).
int64_t parameterCount(const ModelConfig &config);

/// Bytes of tensor data a file of this format holds (no header, no padding).
uint64_t weightBytes(const ModelConfig &config, WeightFormat format);

/// The format named by the file's `kiln.format` metadata.
Expected<WeightFormat> detectWeightFormat(const SafetensorsFile &file);

/// Checks that the file holds every expected tensor with the right dtype and
/// shape (extra tensors are errors too) and that its metadata names this
/// format and family. Names the first offending tensor.
Status checkWeights(const SafetensorsFile &file, const ModelConfig &config,
                    WeightFormat format);
/// Same, with the format read from the metadata.
Status checkWeights(const SafetensorsFile &file, const ModelConfig &config);

} // namespace kiln::io

#endif // KILN_IO_WEIGHTSPEC_H
