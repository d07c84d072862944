//===- ImportDory.cpp - Dory's token step as kiln ops ---------------------===//
//
// MODELS.md "Dory": embedding, then `kiln.loop` over the looped block (prep,
// near attention over sinks and window + far field, output gate, slerp residuals, scaled MLP) with
// a read-out region when the config has an exit threshold, then the head.
//
//===----------------------------------------------------------------------===//

#include "ModelBuilder.h"

using namespace mlir;
using namespace kiln::graph;

namespace kiln::import {
namespace {

/// Landmarks are sealed from every 8th position (the seed's `dory_qcopy`).
constexpr int64_t kLandmarkStride = 8;

class DoryStep {
public:
  DoryStep(ModelBuilder &b, const io::ModelConfig &config)
      : b(b), ob(b.builder()), config(config), d(config.dory),
        hidden(config.hiddenSize), inter(config.intermediateSize),
        scale(ob.getF32FloatAttr(static_cast<float>(d.attnScale))) {}

  void build() {
    Value table = b.weight("embed", b.halfMatrix(config.vocabSize, hidden));
    Value h = EmbedOp::create(ob, b.loc(), b.vec(hidden), table, b.token());
    Value loopState =
        b.state("loop", LoopStateType::get(ob.getContext(), hidden));
    FloatAttr threshold;
    if (d.loop.exitThreshold)
      threshold = ob.getF32FloatAttr(static_cast<float>(*d.loop.exitThreshold));
    auto loop = LoopOp::create(ob, b.loc(), h.getType(), h, loopState,
                               ob.getI64IntegerAttr(d.loop.passes), threshold);
    {
      OpBuilder::InsertionGuard guard(ob);
      Block *body = new Block();
      loop.getBody().push_back(body);
      Value x = body->addArgument(h.getType(), b.loc());
      body->addArgument(ob.getIndexType(), b.loc());
      ob.setInsertionPointToEnd(body);
      for (int64_t layer = 0; layer < d.numLayers; ++layer)
        x = buildLayer(layer, x);
      YieldOp::create(ob, b.loc(), ValueRange{x});
      if (threshold) {
        Block *readout = new Block();
        loop.getReadout().push_back(readout);
        Value r = readout->addArgument(h.getType(), b.loc());
        ob.setInsertionPointToEnd(readout);
        Value p = MaxProbOp::create(ob, b.loc(), ob.getF32Type(),
                                    buildHead(r));
        YieldOp::create(ob, b.loc(), ValueRange{p});
      }
    }
    b.finish(buildHead(loop.getResult()));
  }

private:
  Value rotary(Value input, int64_t heads) {
    return RotaryOp::create(ob, b.loc(), input.getType(), input, b.position(),
                            ob.getI64IntegerAttr(heads),
                            ob.getI64IntegerAttr(d.headDim),
                            ob.getI64IntegerAttr(d.headDim),
                            ob.getF32FloatAttr(static_cast<float>(d.ropeTheta)));
  }

  Value slerp(const std::string &alphaName, Value h, Value update) {
    Value alpha = b.weight(alphaName, b.vec(hidden));
    return SlerpResidualOp::create(ob, b.loc(), h.getType(), h, update, alpha,
                                   b.eps());
  }

  Value buildLayer(int64_t layer, Value x) {
    std::string p = "layers." + std::to_string(layer) + ".";
    int64_t qdim = d.queryDim(), kvdim = d.kvDim();
    Value q = b.matvec(p + "attn.q", qdim, hidden, x);
    Value k = b.matvec(p + "attn.k", kvdim, hidden, x);
    Value v = b.matvec(p + "attn.v", kvdim, hidden, x);
    Value g = b.matvec(p + "attn.gate", qdim, hidden, x);
    Value qr = rotary(q, d.numQHeads);
    Value kr = rotary(k, d.numKvHeads);
    Value sqk = b.weight(p + "attn.s_qk", b.table({d.numQHeads, d.headDim}));
    auto prep = QkPrepOp::create(ob, b.loc(), qr.getType(), kr.getType(), qr,
                                 kr, sqk, ob.getI64IntegerAttr(d.numQHeads),
                                 ob.getI64IntegerAttr(d.numKvHeads),
                                 ob.getI64IntegerAttr(d.headDim), b.eps());
    Value far;
    if (d.farField)
      far = b.state(p + "attn.far",
                    FarFieldType::get(ob.getContext(), d.numQHeads,
                                      d.numKvHeads, d.farField->landmarks,
                                      d.headDim));
    Value ring = b.state(p + "attn.kv",
                         KvRingType::get(ob.getContext(), d.numKvHeads,
                                         d.window, d.headDim));
    if (far) {
      FarFieldCaptureOp::create(ob, b.loc(), far, prep.getQueryOut(),
                                b.position(),
                                ob.getI64IntegerAttr(kLandmarkStride), scale);
      // The push reads the leaving key from the ring: before the ring write.
      FarFieldPushOp::create(ob, b.loc(), far, ring, b.position(),
                             ob.getI64IntegerAttr(d.window), scale);
    }
    KvRingWriteOp::create(ob, b.loc(), ring, prep.getKeyOut(), v, b.position());
    SmallVector<Value> sinks;
    if (d.numSinks > 0) {
      auto type = b.table({d.numKvHeads, d.numSinks, d.headDim});
      sinks.push_back(b.weight(p + "attn.sink_k", type));
      sinks.push_back(b.weight(p + "attn.sink_v", type));
    }
    bool rectify = d.farField && d.farField->rectify;
    Value o = WindowAttentionOp::create(
        ob, b.loc(), qr.getType(), ring, prep.getQueryOut(), b.position(),
        sinks, far,
        ob.getI64IntegerAttr(d.numQHeads), ob.getI64IntegerAttr(d.window),
        scale, rectify ? ob.getUnitAttr() : UnitAttr());
    Value sg = b.weight(p + "attn.s_g", b.vec(qdim));
    Value gated = OutputGateOp::create(ob, b.loc(), o.getType(), o, g, sg);
    Value y = b.matvec(p + "attn.o", hidden, qdim, gated);
    Value h = slerp(p + "alpha_attn", x, y);
    Value mg = b.matvec(p + "mlp.gate", inter, hidden, h);
    Value mu = b.matvec(p + "mlp.up", inter, hidden, h);
    Value su = b.weight(p + "mlp.s_u", b.vec(inter));
    Value sv = b.weight(p + "mlp.s_v", b.vec(inter));
    Value f = ScaledSwiGluOp::create(ob, b.loc(), mg.getType(), mg, mu, su, sv);
    Value down = b.matvec(p + "mlp.down", hidden, inter, f);
    return slerp(p + "alpha_mlp", h, down);
  }

  /// logp = log_softmax(head_scale ⊙ (head · h)).
  Value buildHead(Value h) {
    int64_t vocab = config.vocabSize;
    Value logits = b.matvec("head", vocab, hidden, h);
    Value s = b.weight("head_scale", b.vec(vocab));
    Value scaled = MulOp::create(ob, b.loc(), logits.getType(), logits, s);
    return LogSoftmaxOp::create(ob, b.loc(), scaled.getType(), scaled);
  }

  ModelBuilder &b;
  OpBuilder &ob;
  const io::ModelConfig &config;
  const io::DoryConfig &d;
  int64_t hidden, inter;
  FloatAttr scale;
};

} // namespace

void buildDoryStep(ModelBuilder &builder, const io::ModelConfig &config) {
  DoryStep(builder, config).build();
}

} // namespace kiln::import
