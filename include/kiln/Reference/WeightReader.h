//===- WeightReader.h - Typed reads of a checked weight file ---*- C++ -*-===//
//
// Reads the tensors of docs/weights.md into f32: a *matrix* from its f16 or
// q8_2f form (dequantized once), a vector from F32, the embedding from F16.
// Each read checks the name, dtype and shape it expects and names the tensor
// on failure, so a session built on a wrong file fails with a message instead
// of reading out of bounds.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_REFERENCE_WEIGHTREADER_H
#define KILN_REFERENCE_WEIGHTREADER_H

#include "kiln/IO/Error.h"
#include "kiln/IO/ModelConfig.h"
#include "kiln/IO/Safetensors.h"
#include "kiln/IO/WeightSpec.h"
#include "kiln/Reference/Matrix.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::ref {

class WeightReader {
public:
  WeightReader(const io::SafetensorsFile &file, io::WeightFormat format)
      : file_(file), format_(format) {}

  /// The reader for a model of `family`: refuses a config of another family,
  /// detects the file's format and checks every tensor against the config.
  static io::Expected<WeightReader> forModel(const io::ModelConfig &config,
                                             const io::SafetensorsFile &file,
                                             io::ModelFamily family);

  io::Expected<Matrix> matrix(const std::string &name, int64_t rows,
                              int64_t cols) const;
  /// An F32 tensor of exactly this shape, flattened.
  io::Expected<std::vector<float>> vector(const std::string &name,
                                          std::vector<int64_t> shape) const;
  /// An F16 tensor of this shape, expanded to f32.
  io::Expected<std::vector<float>> halfVector(const std::string &name,
                                              std::vector<int64_t> shape) const;

  io::WeightFormat format() const { return format_; }

private:
  io::Expected<const io::TensorView *>
  tensor(const std::string &name, io::DType dtype,
         const std::vector<int64_t> &shape) const;

  const io::SafetensorsFile &file_;
  io::WeightFormat format_;
};

} // namespace kiln::ref

#endif // KILN_REFERENCE_WEIGHTREADER_H
