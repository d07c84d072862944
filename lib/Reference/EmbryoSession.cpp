//===- EmbryoSession.cpp - Embryo's token step with persistent state ------===//

#include "kiln/Reference/EmbryoSession.h"

#include "kiln/Reference/Activations.h"
#include "kiln/Reference/HierarchicalHead.h"
#include "kiln/Reference/ResonanceRouter.h"
#include "kiln/Reference/Rotary.h"
#include "kiln/Reference/SwiGLU.h"

#include <limits>
#include <string>

namespace kiln::ref {

static size_t toSize(int64_t v) { return static_cast<size_t>(v); }

EmbryoSession::EmbryoSession(std::shared_ptr<const EmbryoModel> model)
    : model_(std::move(model)),
      fixedGate_(-std::numeric_limits<float>::infinity()),
      lastGate_(-std::numeric_limits<float>::infinity()) {
  reset();
}

void EmbryoSession::reset() {
  const io::EmbryoConfig &e = model_->config.embryo;
  state_.clear();
  for (int64_t layer = 0; layer < e.numLayers(); ++layer) {
    LayerState s;
    if (e.isGdnLayer(layer)) {
      const io::GdnConfig &g = *e.gdn;
      s.conv = CausalConvRing(toSize(g.convDim()), toSize(g.convKernel));
      s.heads.assign(toSize(g.numVHeads),
                     DeltaRuleState(toSize(g.headKDim), toSize(g.headVDim)));
    } else {
      const io::AnchorConfig &a = *e.anchor;
      s.ring = AnchorKvRing(toSize(a.numKvHeads), toSize(a.window),
                            toSize(a.headDim));
    }
    state_.push_back(std::move(s));
  }
  position_ = 0;
  lastExperts_.clear();
  lastRoutes_.clear();
  lastHidden_.clear();
}

void EmbryoSession::setHeadGate(float gate) {
  fixedGate_ = gate;
  topP_.reset();
}

void EmbryoSession::setHeadTopP(float topP) { topP_ = topP; }

std::vector<float> EmbryoSession::gdnMixer(size_t layer,
                                           const std::vector<float> &x) {
  const io::GdnConfig &g = *model_->config.embryo.gdn;
  const EmbryoGdnWeights &w = model_->layers[layer].gdn;
  LayerState &s = state_[layer];
  const size_t nk = toSize(g.numKHeads), nv = toSize(g.numVHeads);
  const size_t dk = toSize(g.headKDim), dv = toSize(g.headVDim);

  std::vector<float> conv = s.conv.step(matVec(w.qkv, x), w.conv);
  for (float &value : conv)
    value = silu(value);
  const std::vector<float> z = matVec(w.z, x);
  const std::vector<float> a = matVec(w.a, x);
  const std::vector<float> b = matVec(w.b, x);

  std::vector<float> heads(nv * dv);
  for (size_t h = 0; h < nv; ++h) {
    const size_t kh = toSize(g.kHeadForVHead(static_cast<int64_t>(h)));
    const std::vector<float> qHat = deltaRuleQuery(conv.data() + kh * dk, dk);
    const std::vector<float> kHat =
        deltaRuleKey(conv.data() + nk * dk + kh * dk, dk);
    const float *v = conv.data() + 2 * nk * dk + h * dv;
    const float decay = deltaRuleDecay(w.aLog[h], a[h], w.dtBias[h]);
    const float beta = sigmoid(b[h]);
    const std::vector<float> o =
        s.heads[h].step(qHat.data(), kHat.data(), v, decay, beta);
    const std::vector<float> normed =
        gatedRmsNorm(o.data(), w.norm.data(), z.data() + h * dv, dv,
                     static_cast<float>(model_->config.rmsNormEps));
    std::copy(normed.begin(), normed.end(), heads.begin() + h * dv);
  }
  return matVec(w.out, heads);
}

std::vector<float> EmbryoSession::anchorMixer(size_t layer,
                                              const std::vector<float> &x) {
  const io::AnchorConfig &cfg = *model_->config.embryo.anchor;
  const EmbryoAnchorWeights &w = model_->layers[layer].anchor;
  LayerState &s = state_[layer];
  const size_t hd = toSize(cfg.headDim), rd = toSize(cfg.rotaryDim);

  const std::vector<float> plainQuery = matVec(w.q, x);
  std::vector<float> query = plainQuery;
  std::vector<float> keys = matVec(w.k, x);
  const std::vector<float> values = matVec(w.v, x);
  for (size_t hq = 0; hq < toSize(cfg.numQHeads); ++hq)
    applyRotary(query.data() + hq * hd, rd, position_, cfg.ropeTheta);
  for (size_t kh = 0; kh < toSize(cfg.numKvHeads); ++kh)
    applyRotary(keys.data() + kh * hd, rd, position_, cfg.ropeTheta);
  s.ring.write(position_, keys.data(), values.data());

  AnchorShape shape;
  shape.queryHeads = toSize(cfg.numQHeads);
  shape.kvHeads = toSize(cfg.numKvHeads);
  shape.headDim = hd;
  shape.window = toSize(cfg.window);
  shape.sinks = toSize(cfg.numSinks);
  for (size_t kh = 0; kh < shape.kvHeads; ++kh)
    shape.groupWindows.push_back(
        toSize(cfg.windowForKvHead(static_cast<int64_t>(kh))));
  const std::vector<float> o =
      anchorAttend(shape, s.ring, w.sinkKeys, w.sinkValues, query.data(),
                   plainQuery.data(), position_);
  return matVec(w.o, o);
}

std::vector<float> EmbryoSession::feedForward(size_t layer,
                                              const std::vector<float> &x2) {
  const EmbryoLayerWeights &w = model_->layers[layer];
  std::vector<float> f = swiGlu(w.ffn, x2);
  if (w.hasMoe) {
    const RouteDecision route = routeResonance(w.moe.router, x2);
    lastExperts_.push_back(route.expert);
    lastRoutes_.push_back(route);
    const std::vector<float> routed = swiGlu(w.moe.experts[route.expert], x2);
    for (size_t i = 0; i < f.size(); ++i)
      f[i] += routed[i];
  }
  return f;
}

io::Expected<std::vector<float>> EmbryoSession::step(int token) {
  const io::ModelConfig &config = model_->config;
  if (token < 0 || token >= config.vocabSize)
    return io::Error("reference: token " + std::to_string(token) +
                     " is outside the vocabulary [0, " +
                     std::to_string(config.vocabSize) + ")");
  if (position_ >= toSize(config.maxPosition))
    return io::Error("reference: position " + std::to_string(position_) +
                     " reaches max_position (" +
                     std::to_string(config.maxPosition) + ")");
  const size_t hidden = toSize(config.hiddenSize);
  const float eps = static_cast<float>(config.rmsNormEps);
  const float *row = model_->embed.data() + toSize(token) * hidden;
  std::vector<float> h(row, row + hidden);
  lastExperts_.clear();
  lastRoutes_.clear();

  for (size_t layer = 0; layer < model_->layers.size(); ++layer) {
    const EmbryoLayerWeights &w = model_->layers[layer];
    std::vector<float> x = rmsNorm(h, eps);
    for (size_t i = 0; i < hidden; ++i)
      x[i] *= w.inNorm[i];
    const std::vector<float> mixed =
        w.isGdn ? gdnMixer(layer, x) : anchorMixer(layer, x);
    for (size_t i = 0; i < hidden; ++i)
      h[i] += mixed[i];
    std::vector<float> x2 = rmsNorm(h, eps);
    for (size_t i = 0; i < hidden; ++i)
      x2[i] *= w.postNorm[i];
    const std::vector<float> f = feedForward(layer, x2);
    for (size_t i = 0; i < hidden; ++i)
      h[i] += f[i];
  }
  lastHidden_ = h;

  std::vector<float> x = rmsNorm(h, eps);
  for (size_t i = 0; i < hidden; ++i)
    x[i] *= model_->finalNorm[i];
  const std::vector<float> lc = clusterLogProbs(model_->head, x);
  lastGate_ = topP_ ? headGateFromTopP(lc, *topP_) : fixedGate_;
  ++position_;
  return hierarchicalHeadLogProbs(model_->head, x, lc, lastGate_);
}

} // namespace kiln::ref
