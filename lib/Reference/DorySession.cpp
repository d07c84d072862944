//===- DorySession.cpp - Dory's looped block with persistent state --------===//

#include "kiln/Reference/DorySession.h"

#include "kiln/Reference/Activations.h"
#include "kiln/Reference/DoryPrep.h"
#include "kiln/Reference/ScaledMlp.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace kiln::ref {

static size_t toSize(int64_t v) { return static_cast<size_t>(v); }

/// Landmarks are kept from every this-many prompt positions (seed: dory_qcopy).
static constexpr size_t kLandmarkStride = 8;

DorySession::DorySession(std::shared_ptr<const DoryModel> model)
    : model_(std::move(model)) {
  reset();
}

void DorySession::reset() {
  layers_.assign(model_->layers.size(), LayerState());
  position_ = 0;
  sealed_ = false;
  lastPassesUsed_ = 0;
}

size_t DorySession::landmarkCount(size_t layer, size_t kvHead) const {
  const LayerState &s = layers_[layer];
  return kvHead < s.landmarks.size() ? s.landmarks[kvHead].count : 0;
}

const NystromLandmarks &DorySession::landmarks(size_t layer,
                                               size_t kvHead) const {
  return layers_[layer].landmarks[kvHead];
}

const FarFieldAccumulator &DorySession::farField(size_t layer,
                                                 size_t kvHead) const {
  return layers_[layer].far[kvHead];
}

const float *DorySession::storedKey(size_t layer, size_t kvHead,
                                    size_t position) const {
  const size_t kvDim = toSize(model_->config.dory.kvDim());
  const size_t hd = toSize(model_->config.dory.headDim);
  return layers_[layer].keys.data() + position * kvDim + kvHead * hd;
}

void DorySession::observe(const char *stage,
                          const std::vector<float> &h) const {
  if (observer_)
    observer_(stage, h);
}

std::vector<float> DorySession::headLogProbs(const std::vector<float> &h) const {
  std::vector<float> logits = matVec(model_->head, h);
  for (size_t i = 0; i < logits.size(); ++i)
    logits[i] *= model_->headScale[i];
  return logSoftmax(logits);
}

void DorySession::sealLandmarks(size_t layer,
                                const std::vector<std::vector<float>> &q,
                                size_t rows) {
  const io::DoryConfig &d = model_->config.dory;
  const size_t hd = toSize(d.headDim), kvh = toSize(d.numKvHeads);
  const size_t group = toSize(d.qHeadsPerKvHead());
  const size_t wanted = toSize(d.farField->landmarks);
  // Positions 0, 8, 16, … of the first call (which starts at position 0).
  const size_t count =
      std::min(wanted, (rows + kLandmarkStride - 1) / kLandmarkStride);
  LayerState &s = layers_[layer];
  s.landmarks.clear();
  s.far.clear();
  for (size_t kh = 0; kh < kvh; ++kh) {
    std::vector<float> keys;
    for (size_t a = 0; a < count; ++a) {
      const float *query = q[a * kLandmarkStride].data() + kh * group * hd;
      keys.insert(keys.end(), query, query + hd);
    }
    s.landmarks.push_back(ref::sealLandmarks(std::move(keys), count, hd,
                                             static_cast<float>(d.attnScale)));
    s.far.emplace_back(count, hd);
  }
}

void DorySession::runLayer(size_t layer, size_t pass,
                           std::vector<std::vector<float>> &h,
                           size_t firstPosition) {
  const io::ModelConfig &config = model_->config;
  const io::DoryConfig &d = config.dory;
  const DoryLayerWeights &w = model_->layers[layer];
  LayerState &s = layers_[layer];
  const float eps = static_cast<float>(config.rmsNormEps);
  const float scale = static_cast<float>(d.attnScale);
  const size_t rows = h.size();
  const size_t hd = toSize(d.headDim), qh = toSize(d.numQHeads);
  const size_t kvh = toSize(d.numKvHeads), kvDim = kvh * hd;
  const size_t group = toSize(d.qHeadsPerKvHead());
  const size_t window = toSize(d.window);
  const size_t sinks = toSize(d.numSinks);

  // Every row's projections and prep first: row i's pass-p attention reads
  // the earlier rows' pass-p keys.
  std::vector<std::vector<float>> queries(rows), gates(rows);
  for (size_t i = 0; i < rows; ++i) {
    const size_t position = firstPosition + i;
    const std::vector<float> q = matVec(w.q, h[i]);
    const std::vector<float> k = matVec(w.k, h[i]);
    const std::vector<float> v = matVec(w.v, h[i]);
    gates[i] = matVec(w.gate, h[i]);
    queries[i].resize(qh * hd);
    for (size_t hq = 0; hq < qh; ++hq) {
      const std::vector<float> prepped =
          doryPrepQuery(q.data() + hq * hd, w.scaleQk.data() + hq * hd, hd,
                        position, d.ropeTheta, eps);
      std::copy(prepped.begin(), prepped.end(), queries[i].begin() + hq * hd);
    }
    for (size_t kh = 0; kh < kvh; ++kh) {
      const std::vector<float> prepped =
          doryPrepKey(k.data() + kh * hd, hd, position, d.ropeTheta, eps);
      std::copy(prepped.begin(), prepped.end(),
                s.keys.begin() + position * kvDim + kh * hd);
    }
    std::copy(v.begin(), v.end(), s.values.begin() + position * kvDim);
  }
  if (d.farField && !sealed_ && pass == 0)
    sealLandmarks(layer, queries, rows);

  // Per KV head, the far field as each row sees it: the folded keys plus the
  // call's keys that already left that row's window (lo grows with the row).
  const bool far = d.farField.has_value() && !s.landmarks.empty();
  std::vector<FarFieldAccumulator> seen;
  if (far)
    seen = s.far;
  size_t nextFold = s.foldedUpTo;

  for (size_t i = 0; i < rows; ++i) {
    const size_t position = firstPosition + i;
    const size_t low = position + 1 > window ? position + 1 - window : 0;
    if (far)
      for (; nextFold < low; ++nextFold)
        for (size_t kh = 0; kh < kvh; ++kh)
          seen[kh].push(s.landmarks[kh],
                        s.keys.data() + nextFold * kvDim + kh * hd,
                        s.values.data() + nextFold * kvDim + kh * hd, scale);
    std::vector<float> o(qh * hd);
    for (size_t hq = 0; hq < qh; ++hq) {
      const size_t kh = hq / group;
      std::vector<const float *> keys, values;
      // The KV head's sinks come first in the near set, in every pass and
      // with or without the far field (docs/semantics.md): no position, so
      // never evicted and not rotated.
      for (size_t n = 0; n < sinks; ++n) {
        keys.push_back(w.sinkK.data() + (kh * sinks + n) * hd);
        values.push_back(w.sinkV.data() + (kh * sinks + n) * hd);
      }
      for (size_t j = low; j <= position; ++j) {
        keys.push_back(s.keys.data() + j * kvDim + kh * hd);
        values.push_back(s.values.data() + j * kvDim + kh * hd);
      }
      const std::vector<float> head = attendNearFar(
          queries[i].data() + hq * hd, keys, values, hd, scale,
          far ? &s.landmarks[kh] : nullptr, far ? &seen[kh] : nullptr,
          far && d.farField->rectify);
      for (size_t e = 0; e < hd; ++e) {
        const size_t at = hq * hd + e;
        o[at] = head[e] * sigmoid(gates[i][at] * w.scaleGate[at]);
      }
    }
    slerpResidual(h[i], matVec(w.o, o), w.alphaAttn, eps);
    observe("slerp_attn", h[i]);
    slerpResidual(h[i], scaledMlp(w.mlp, h[i]), w.alphaMlp, eps);
    observe("slerp_mlp", h[i]);
  }
}

io::Expected<std::vector<std::vector<float>>>
DorySession::forwardAllRows(const std::vector<int> &tokens) {
  const io::ModelConfig &config = model_->config;
  const io::DoryConfig &d = config.dory;
  if (tokens.empty())
    return io::Error("reference: a Dory call needs at least one token");
  for (size_t i = 0; i < tokens.size(); ++i)
    if (tokens[i] < 0 || tokens[i] >= config.vocabSize)
      return io::Error("reference: token " + std::to_string(tokens[i]) +
                       " (row " + std::to_string(i) +
                       ") is outside the vocabulary [0, " +
                       std::to_string(config.vocabSize) + ")");
  if (position_ + tokens.size() > toSize(config.maxPosition))
    return io::Error("reference: positions " + std::to_string(position_) +
                     ".." + std::to_string(position_ + tokens.size() - 1) +
                     " pass max_position (" +
                     std::to_string(config.maxPosition) + ")");

  const size_t rows = tokens.size(), hidden = toSize(config.hiddenSize);
  const size_t kvDim = toSize(d.kvDim());
  const float eps = static_cast<float>(config.rmsNormEps);
  const size_t firstPosition = position_;
  for (LayerState &s : layers_) {
    s.keys.resize((firstPosition + rows) * kvDim, 0.0f);
    s.values.resize((firstPosition + rows) * kvDim, 0.0f);
  }

  std::vector<std::vector<float>> h(rows);
  std::vector<LoopRowState> loop(rows);
  for (size_t i = 0; i < rows; ++i) {
    const float *row = model_->embed.data() + toSize(tokens[i]) * hidden;
    h[i].assign(row, row + hidden);
    applyLoopMix(LoopMixMode::Enter, h[i], loop[i], eps);
    observe("mix0", h[i]);
  }

  const size_t passes = toSize(d.loop.passes);
  std::vector<std::vector<float>> out(rows);
  for (size_t pass = 0; pass < passes; ++pass) {
    for (size_t layer = 0; layer < model_->layers.size(); ++layer)
      runLayer(layer, pass, h, firstPosition);
    lastPassesUsed_ = pass + 1;
    if (pass + 1 == passes) {
      for (size_t i = 0; i < rows; ++i) {
        applyLoopMix(LoopMixMode::Leave, h[i], loop[i], eps);
        observe("mix2", h[i]);
        out[i] = headLogProbs(h[i]);
      }
      break;
    }
    if (!d.loop.exitThreshold) {
      for (size_t i = 0; i < rows; ++i) {
        applyLoopMix(LoopMixMode::Between, h[i], loop[i], eps);
        observe("mix1", h[i]);
      }
      continue;
    }
    // The early-exit test: every row's read-out must be confident enough.
    bool allConfident = true;
    for (size_t i = 0; i < rows; ++i) {
      applyLoopMix(LoopMixMode::ReadOut, h[i], loop[i], eps);
      observe("mix3", h[i]);
      out[i] = headLogProbs(h[i]);
      const float best = *std::max_element(out[i].begin(), out[i].end());
      if (!(std::exp(static_cast<double>(best)) >= *d.loop.exitThreshold))
        allConfident = false;
    }
    if (allConfident)
      break;
    for (size_t i = 0; i < rows; ++i) {
      applyLoopMix(LoopMixMode::Resume, h[i], loop[i], eps);
      observe("mix4", h[i]);
    }
  }

  // Keys that left the last row's window are folded once, final values.
  const size_t lastPosition = firstPosition + rows - 1;
  const size_t window = toSize(d.window);
  const size_t low = lastPosition + 1 > window ? lastPosition + 1 - window : 0;
  const size_t hd = toSize(d.headDim);
  for (LayerState &s : layers_) {
    if (d.farField && !s.landmarks.empty())
      for (; s.foldedUpTo < low; ++s.foldedUpTo)
        for (size_t kh = 0; kh < s.far.size(); ++kh)
          s.far[kh].push(s.landmarks[kh],
                         s.keys.data() + s.foldedUpTo * kvDim + kh * hd,
                         s.values.data() + s.foldedUpTo * kvDim + kh * hd,
                         static_cast<float>(d.attnScale));
    else
      s.foldedUpTo = std::max(s.foldedUpTo, low);
  }
  sealed_ = true;
  position_ += rows;
  return out;
}

io::Expected<std::vector<float>>
DorySession::forward(const std::vector<int> &tokens) {
  auto rows = forwardAllRows(tokens);
  if (!rows)
    return rows.error();
  return std::move(rows->back());
}

} // namespace kiln::ref
