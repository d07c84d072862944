//===- ImportEmbryo.cpp - Embryo's token step as kiln ops -----------------===//
//
// MODELS.md "Embryo": embedding, then per layer rms_norm -> mixer (GDN or
// anchor) -> residual -> rms_norm -> shared FFN (+ routed expert) ->
// residual, then the hierarchical head with its top-p gate.
//
//===----------------------------------------------------------------------===//

#include "ModelBuilder.h"

using namespace mlir;
using namespace kiln::graph;

namespace kiln::import {
namespace {

class EmbryoStep {
public:
  EmbryoStep(ModelBuilder &b, const io::ModelConfig &config)
      : b(b), ob(b.builder()), config(config), e(config.embryo),
        hidden(config.hiddenSize), inter(config.intermediateSize) {}

  void build() {
    Value table =
        b.weight("embed", b.halfMatrix(config.vocabSize, hidden));
    Value h = EmbedOp::create(ob, b.loc(), b.vec(hidden), table, b.token());
    for (int64_t layer = 0; layer < e.numLayers(); ++layer)
      h = buildLayer(layer, h);
    b.finish(buildHead(h));
  }

private:
  std::string prefix(int64_t layer) {
    return "layers." + std::to_string(layer) + ".";
  }

  Value buildLayer(int64_t layer, Value h) {
    std::string p = prefix(layer);
    Value x = b.rmsNorm(p + "in_norm", h, e.zeroCenteredNorm);
    Value mixed = e.isGdnLayer(layer) ? buildGdn(p, x) : buildAnchor(p, x);
    h = b.add(h, mixed);
    Value x2 = b.rmsNorm(p + "post_norm", h, e.zeroCenteredNorm);
    Value f = buildSwiGlu(p + "ffn", x2);
    if (e.isMoeLayer(layer))
      f = b.add(f, buildMoe(p, x2));
    return b.add(h, f);
  }

  Value buildGdn(const std::string &p, Value x) {
    const io::GdnConfig &g = *e.gdn;
    int64_t cdim = g.convDim(), nv = g.numVHeads;
    Value qkv = b.matvec(p + "gdn.qkv", cdim, hidden, x);
    Value ring = b.state(p + "gdn.conv_ring",
                         ConvRingType::get(ob.getContext(), cdim, g.convKernel));
    Value taps = b.weight(p + "gdn.conv", b.table({cdim, g.convKernel}));
    Value conv = ConvRingStepOp::create(ob, b.loc(), b.vec(cdim), ring, qkv, taps);
    Value cq = SiluOp::create(ob, b.loc(), conv.getType(), conv);
    Value z = b.matvec(p + "gdn.z", g.valueDim(), hidden, x);
    Value a = b.matvec(p + "gdn.a", nv, hidden, x);
    Value bb = b.matvec(p + "gdn.b", nv, hidden, x);
    Value aLog = b.weight(p + "gdn.A_log", b.vec(nv));
    Value dtBias = b.weight(p + "gdn.dt_bias", b.vec(nv));
    auto gates = GdnGatesOp::create(ob, b.loc(), b.vec(nv), b.vec(nv), a, bb,
                                    aLog, dtBias);
    Value state = b.state(p + "gdn.state",
                          GdnStateType::get(ob.getContext(), nv, g.headKDim,
                                            g.headVDim));
    Value o = GdnStepOp::create(ob, b.loc(), b.vec(g.valueDim()), state, cq,
                                gates.getDecay(), gates.getBeta(),
                                ob.getI64IntegerAttr(g.numKHeads), FloatAttr());
    Value norm = b.weight(p + "gdn.norm", b.vec(g.headVDim));
    Value gated = GatedRmsNormOp::create(ob, b.loc(), o.getType(), o, z, norm,
                                         ob.getI64IntegerAttr(nv), b.eps());
    return b.matvec(p + "gdn.out", hidden, g.valueDim(), gated);
  }

  Value rotary(Value input, int64_t heads, const io::AnchorConfig &a) {
    return RotaryOp::create(ob, b.loc(), input.getType(), input, b.position(),
                            ob.getI64IntegerAttr(heads),
                            ob.getI64IntegerAttr(a.headDim),
                            ob.getI64IntegerAttr(a.rotaryDim),
                            ob.getF32FloatAttr(static_cast<float>(a.ropeTheta)));
  }

  Value buildAnchor(const std::string &p, Value x) {
    const io::AnchorConfig &a = *e.anchor;
    Value q = b.matvec(p + "attn.q", a.queryDim(), hidden, x);
    Value k = b.matvec(p + "attn.k", a.kvDim(), hidden, x);
    Value v = b.matvec(p + "attn.v", a.kvDim(), hidden, x);
    Value qr = rotary(q, a.numQHeads, a);
    Value kr = rotary(k, a.numKvHeads, a);
    Value ring = b.state(p + "attn.kv",
                         KvRingType::get(ob.getContext(), a.numKvHeads,
                                         a.window, a.headDim));
    KvRingWriteOp::create(ob, b.loc(), ring, kr, v, b.position());
    SmallVector<Value> sinks;
    if (a.numSinks > 0) {
      auto type = b.table({a.numKvHeads, a.numSinks, a.headDim});
      sinks.push_back(b.weight(p + "attn.sink_k", type));
      sinks.push_back(b.weight(p + "attn.sink_v", type));
    }
    DenseI64ArrayAttr windows;
    if (!a.groupWindows.empty())
      windows = ob.getDenseI64ArrayAttr(a.groupWindows);
    Value o = RingAttentionOp::create(ob, b.loc(), qr.getType(), ring, qr, q,
                                      b.position(), sinks,
                                      ob.getI64IntegerAttr(a.numQHeads),
                                      windows, FloatAttr());
    return b.matvec(p + "attn.o", hidden, a.queryDim(), o);
  }

  Value buildSwiGlu(const std::string &p, Value x2) {
    Value g = b.matvec(p + ".gate", inter, hidden, x2);
    Value u = b.matvec(p + ".up", inter, hidden, x2);
    Value f = SwiGluOp::create(ob, b.loc(), g.getType(), g, u);
    return b.matvec(p + ".down", hidden, inter, f);
  }

  /// The routed expert: route, select each of gate/up/down, then a SwiGLU.
  Value buildMoe(const std::string &p, Value x2) {
    const io::MoeConfig &m = *e.moe;
    int64_t experts = m.numExperts;
    Value centres = b.weight(p + "moe.centres", b.table({experts, hidden}));
    Value basis;
    if (m.rank > 0)
      basis = b.weight(p + "moe.basis", b.table({experts, m.rank, hidden}));
    Value bias = b.weight(p + "moe.bias", b.vec(experts));
    Value shells;
    if (m.growthShells)
      shells = b.weight(p + "moe.shells", b.vec(experts));
    Value expert = ResonanceRouteOp::create(ob, b.loc(), ob.getIndexType(), x2,
                                            centres, bias, basis, shells);
    auto select = [&](const char *part, int64_t rows, int64_t cols) {
      SmallVector<Value> candidates;
      Type type = b.matrix(rows, cols);
      for (int64_t x = 0; x < experts; ++x)
        candidates.push_back(b.weight(
            p + "moe.experts." + std::to_string(x) + "." + part, type));
      return ExpertSelectOp::create(ob, b.loc(), type, expert, candidates)
          .getResult();
    };
    Value gate = select("gate", inter, hidden);
    Value up = select("up", inter, hidden);
    Value down = select("down", hidden, inter);
    Value g = MatVecOp::create(ob, b.loc(), b.vec(inter), gate, x2);
    Value u = MatVecOp::create(ob, b.loc(), b.vec(inter), up, x2);
    Value f = SwiGluOp::create(ob, b.loc(), g.getType(), g, u);
    return MatVecOp::create(ob, b.loc(), b.vec(hidden), down, f);
  }

  Value buildHead(Value h) {
    int64_t clusters = e.numClusters;
    Value x = b.rmsNorm("final_norm", h, e.zeroCenteredNorm);
    Value c = b.weight("head.clusters", b.table({clusters, hidden}));
    Value logits = MatVecOp::create(ob, b.loc(), b.vec(clusters), c, x);
    Value lc = LogSoftmaxOp::create(ob, b.loc(), logits.getType(), logits);
    Value gate = TopPGateOp::create(ob, b.loc(), ob.getF32Type(), lc, b.topP());
    Value rows = b.weight("head.rows", b.matrix(config.vocabSize, hidden));
    return ClusteredHeadOp::create(ob, b.loc(), b.vec(config.vocabSize), rows,
                                   x, lc, gate,
                                   ob.getI64IntegerAttr(clusters),
                                   ob.getI64IntegerAttr(e.clusterSize));
  }

  ModelBuilder &b;
  OpBuilder &ob;
  const io::ModelConfig &config;
  const io::EmbryoConfig &e;
  int64_t hidden, inter;
};

} // namespace

void buildEmbryoStep(ModelBuilder &builder, const io::ModelConfig &config) {
  EmbryoStep(builder, config).build();
}

} // namespace kiln::import
