//===- WeightReader.cpp - Typed reads of a checked weight file ------------===//

#include "kiln/Reference/WeightReader.h"

#include "kiln/IO/Half.h"

#include <cstring>

namespace kiln::ref {

using io::DType;
using io::Error;
using io::Expected;

Expected<WeightReader> WeightReader::forModel(const io::ModelConfig &config,
                                             const io::SafetensorsFile &file,
                                             io::ModelFamily family) {
  if (config.family != family)
    return Error("reference: config family is '" +
                 std::string(io::modelFamilyName(config.family)) +
                 "', expected '" + io::modelFamilyName(family) + "'");
  auto format = io::detectWeightFormat(file);
  if (!format)
    return format.error();
  if (io::Status checked = io::checkWeights(file, config, *format); !checked)
    return checked.error();
  return WeightReader(file, *format);
}

Expected<const io::TensorView *>
WeightReader::tensor(const std::string &name, DType dtype,
                     const std::vector<int64_t> &shape) const {
  const io::TensorView *view = file_.find(name);
  if (!view)
    return Error("weights: missing tensor '" + name + "'");
  if (view->dtype != dtype)
    return Error("weights: tensor '" + name + "' is " +
                 io::dtypeName(view->dtype) + ", expected " +
                 io::dtypeName(dtype));
  if (view->shape != shape)
    return Error("weights: tensor '" + name + "' has shape " +
                 io::shapeToString(view->shape) + ", expected " +
                 io::shapeToString(shape));
  return view;
}

// Tensor data in a mapped file may sit at any 8-byte offset; copying through
// memcpy keeps the reads free of alignment assumptions.
template <class T> static std::vector<T> copyOut(const io::TensorView &view) {
  std::vector<T> out(view.byteSize / sizeof(T));
  std::memcpy(out.data(), view.data, out.size() * sizeof(T));
  return out;
}

Expected<Matrix> WeightReader::matrix(const std::string &name, int64_t rows,
                                      int64_t cols) const {
  const size_t r = static_cast<size_t>(rows), c = static_cast<size_t>(cols);
  if (format_ == io::WeightFormat::F16) {
    auto view = tensor(name, DType::F16, {rows, cols});
    if (!view)
      return view.error();
    return matrixFromHalf(r, c, copyOut<uint16_t>(**view).data());
  }
  auto codes = tensor(name + ".q", DType::I8, {rows, cols});
  if (!codes)
    return codes.error();
  auto rowScale = tensor(name + ".row_scale", DType::F32, {rows});
  if (!rowScale)
    return rowScale.error();
  auto colScale = tensor(name + ".col_scale", DType::F32, {cols});
  if (!colScale)
    return colScale.error();
  return matrixFromQ8(r, c, copyOut<int8_t>(**codes).data(),
                      copyOut<float>(**rowScale).data(),
                      copyOut<float>(**colScale).data());
}

Expected<std::vector<float>>
WeightReader::vector(const std::string &name,
                     std::vector<int64_t> shape) const {
  auto view = tensor(name, DType::F32, shape);
  if (!view)
    return view.error();
  return copyOut<float>(**view);
}

Expected<std::vector<float>>
WeightReader::halfVector(const std::string &name,
                         std::vector<int64_t> shape) const {
  auto view = tensor(name, DType::F16, shape);
  if (!view)
    return view.error();
  const std::vector<uint16_t> bits = copyOut<uint16_t>(**view);
  std::vector<float> out(bits.size());
  for (size_t i = 0; i < bits.size(); ++i)
    out[i] = io::halfBitsToFloat(bits[i]);
  return out;
}

} // namespace kiln::ref
