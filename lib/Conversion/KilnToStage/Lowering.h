//===- Lowering.h - State of one kiln.model -> @decode lowering -*- C++ -*-===//
//
// The lowering walks the step in program order and emits one stage.dispatch
// per stage. Kiln values map to logical buffers (arguments of @decode):
// weights and state by symbol, activations by SSA value. Some kiln ops are
// emitted as part of a stage that a later op completes (rotary inside
// rope_kv_write, gdn_gates inside gdn_step, ...); they are "deferred" and
// checked to be consumed.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_CONVERSION_KILNTOSTAGE_LOWERING_H
#define KILN_LIB_CONVERSION_KILNTOSTAGE_LOWERING_H

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Stage/IR/StageModule.h"
#include "kiln/Dialect/Stage/IR/StageOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

#include <string>

namespace kiln::lowering {

namespace kg = ::kiln::graph;

using stage::BufferKind;

/// One safetensors tensor placed in a weight buffer.
struct TensorPlacement {
  std::string name;
  std::string dtype;  // "F32" | "F16" | "I8"
  llvm::SmallVector<int64_t> shape;
  std::string layout; // plan.fbs WeightLayout name
  int64_t rowPitchBytes = 0;
  /// Where it lands in the buffer (a stacked expert's tensors follow one
  /// another).
  int64_t byteOffset = 0;
};

struct LogicalBuffer {
  BufferKind kind;
  std::string name;
  llvm::SmallVector<TensorPlacement> tensors; // weights only
  /// Rows it holds (stage.buffer's `rows`); 0: a scratch activation holds one
  /// per row of the program's call, anything else one.
  int64_t rows = 0;
};


class Lowering {
public:
  /// `rows` is the rows one call carries (1: @decode, more: @prefill);
  /// `ringRows` the most rows any program of the module carries, which sizes
  /// the KV rings both programs share.
  Lowering(mlir::ModuleOp module, kg::ModelOp model, int64_t rows = 1,
           int64_t ringRows = 1);

  /// Builds @decode (or @prefill); on failure a diagnostic has been emitted.
  mlir::LogicalResult run();

private:
  friend class Walker;

  //===--- Buffers (Buffers.cpp) ------------------------------------------===//
  mlir::Value addArgument(mlir::Type type, LogicalBuffer buffer);
  mlir::MemRefType f32Buffer(llvm::ArrayRef<int64_t> shape);
  mlir::MemRefType packedBuffer(int64_t rows, int64_t groups);
  /// The buffer of a declared f32 tensor weight (norms, taps, sinks, ...).
  mlir::Value tensorWeight(llvm::StringRef name, mlir::RankedTensorType type);
  /// Matrix pieces: codes or halves, row scale and column scale (q8_2f).
  mlir::Value matrixWeight(llvm::StringRef name, kg::WeightType type);
  mlir::Value rowScale(llvm::StringRef name, kg::WeightType type);
  mlir::Value colScale(llvm::StringRef name, kg::WeightType type);
  /// Keys a KV ring holds: its window, and R - 1 more where a program writes
  /// R rows before their attentions read it (docs/pipeline.md, "Rows").
  int64_t ringCapacity(kg::KvRingType ring) const {
    return ring.getCapacity() + ringRows_ - 1;
  }
  /// State buffers of a declared state symbol; `part` picks one of several.
  mlir::Value stateBuffer(llvm::StringRef name, mlir::Type type,
                          llvm::StringRef part);
  /// The one readback buffer (the read-out's and the final head's logits
  /// land in it); `values` is what it holds ("LogProbs" | "Logits").
  mlir::Value readbackBuffer(mlir::RankedTensorType type,
                             llvm::StringRef values);
  /// The buffers of an attention op's sinks (k, v), null when it has none; the
  /// sinks must be declared weights.
  mlir::LogicalResult sinkBuffers(mlir::Operation *op, mlir::ValueRange sinks,
                                  mlir::Value &sinkK, mlir::Value &sinkV);
  mlir::Value params() const { return params_; }
  /// The buffer of an activation; created (scratch or readback) on first use.
  mlir::Value bufferOf(mlir::Value activation);
  /// Makes `activation` live in `buffer` (in-place stages).
  void alias(mlir::Value activation, mlir::Value buffer);
  mlir::Value freshScratch(llvm::ArrayRef<int64_t> shape, llvm::StringRef name);
  /// The scores buffer a stage.key_scores fills for its attention stage:
  /// [query heads, sinks + the widest window]. The walk reads at most a window
  /// of keys, so a ring holding more (@prefill's rows written ahead) does not
  /// widen it.
  mlir::Value scoresBuffer(mlir::Value query, mlir::Value ring, mlir::Value sinks,
                           int64_t widestWindow);

  //===--- Column fields (ColumnFields.cpp) -------------------------------===//
  /// The column scale buffers of the q8_2f matrices that read `activation`
  /// (one per distinct matrix), and whether it also has plain readers.
  struct FoldNeeds {
    llvm::SmallVector<mlir::Value> colScales;
    bool plain = false;
  };
  FoldNeeds foldNeeds(mlir::Value activation);
  /// For producers with one `fold` operand: the fold to pass (null if none)
  /// and the bookkeeping that lets the consumer find the folded buffer.
  mlir::Value singleFold(mlir::Value activation);
  /// The input buffer for a q8_2f reader with column scale `colScale`:
  /// folded by the producer, or by a stage.mul emitted here.
  mlir::Value foldedInput(mlir::Value activation, mlir::Value colScale);

  //===--- Emission ---------------------------------------------------------===//
  /// Starts a stage.dispatch named `name` and returns a builder inside it.
  mlir::OpBuilder dispatch(llvm::StringRef name);
  std::string kernelName(llvm::StringRef what);
  mlir::InFlightDiagnostic refuse(mlir::Operation *op, const llvm::Twine &why);

  //===--- Op lowering (LowerCommon.cpp, LowerEmbryo.cpp, LowerDory.cpp) ---===//
  mlir::LogicalResult lowerBlock(mlir::Block &block);
  mlir::LogicalResult lowerOp(mlir::Operation *op);
  mlir::LogicalResult lowerEmbed(kg::EmbedOp op);
  mlir::LogicalResult lowerRmsNorm(kg::RmsNormOp op);
  mlir::LogicalResult lowerMatVec(kg::MatVecOp op);
  mlir::LogicalResult lowerBinary(mlir::Operation *op);
  mlir::LogicalResult lowerSwiGlu(kg::SwiGluOp op);
  mlir::LogicalResult lowerReturn(kg::ReturnOp op);
  // Embryo.
  mlir::LogicalResult lowerConvRing(kg::ConvRingStepOp op);
  mlir::LogicalResult lowerGatedRmsNorm(kg::GatedRmsNormOp op);
  mlir::LogicalResult lowerKvRingWrite(kg::KvRingWriteOp op);
  mlir::LogicalResult lowerRingAttention(kg::RingAttentionOp op);
  mlir::LogicalResult lowerLogSoftmax(kg::LogSoftmaxOp op);
  mlir::LogicalResult lowerClusteredHead(kg::ClusteredHeadOp op);
  mlir::LogicalResult lowerRoute(kg::ResonanceRouteOp op);
  // Routed experts (LowerMoe.cpp).
  mlir::LogicalResult lowerExpertSelect(kg::ExpertSelectOp op);
  mlir::LogicalResult lowerExpertMatVec(kg::MatVecOp op,
                                        kg::ExpertSelectOp select);
  /// One buffer holding every candidate's matrix (`part` empty), row scale
  /// or column scale ("row_scale" | "col_scale"), expert after expert.
  mlir::Value expertStack(llvm::ArrayRef<std::string> candidates,
                          kg::WeightType type, llvm::StringRef part);
  // Dory.
  mlir::LogicalResult lowerDoryPrep(kg::KvRingWriteOp op, kg::QkPrepOp prep);
  mlir::LogicalResult lowerWindowAttention(kg::WindowAttentionOp op);
  mlir::LogicalResult lowerOutputGate(kg::OutputGateOp op);
  mlir::LogicalResult lowerScaledSwiGlu(kg::ScaledSwiGluOp op);
  mlir::LogicalResult lowerSlerp(kg::SlerpResidualOp op);
  mlir::LogicalResult lowerLoop(kg::LoopOp op);
  // Dory far field and early exit (LowerDoryFar.cpp).
  mlir::LogicalResult lowerFarFieldPush(kg::FarFieldPushOp op);
  mlir::LogicalResult lowerFarFieldCapture(kg::FarFieldCaptureOp op);
  /// Emits the pending capture + seal of `far` (pass 0) before its
  /// attention, and returns its four state buffers.
  mlir::LogicalResult farFieldBuffers(kg::WindowAttentionOp op,
                                      llvm::SmallVectorImpl<mlir::Value> &out);
  mlir::LogicalResult lowerReadout(kg::LoopOp op, float eps);
  mlir::LogicalResult lowerMaxProb(kg::MaxProbOp op);
  /// The early-exit flag (state word, `stage.device_flags`), made once.
  mlir::Value exitFlag();
  mlir::LogicalResult emitMix(mlir::Operation *at, kg::MixMode mode,
                              mlir::Value stateHandle, mlir::Value hidden,
                              float eps);
  /// Checks that `value` is not read after `op` (an in-place stage reuses
  /// its buffer).
  mlir::LogicalResult checkLastUse(mlir::Value value, mlir::Operation *op);

  /// Finishes @decode: function type, argument attributes, func attributes.
  void finish();

  mlir::ModuleOp module_;
  kg::ModelOp model_;
  /// Rows one call carries; a multi-row program's activations hold one each.
  int64_t rows_ = 1;
  /// A ring written R rows ahead of its attentions holds window + R - 1 keys.
  int64_t ringRows_ = 1;
  /// Activations of a multi-row program that hold one row: the head's
  /// cluster log-probabilities, formed for the call's last row only.
  llvm::DenseSet<mlir::Value> oneRow_;
  mlir::func::FuncOp func_;
  mlir::OpBuilder builder_;
  mlir::Value params_;
  llvm::SmallVector<LogicalBuffer> buffers_;
  llvm::StringMap<mlir::Value> weightBuffers_;
  llvm::StringMap<mlir::Value> stateBuffers_;
  llvm::DenseMap<mlir::Value, mlir::Value> activations_;
  /// kiln.resonance_route result -> the word stage.router writes.
  llvm::DenseMap<mlir::Value, mlir::Value> expertWords_;
  /// (activation, column scale buffer) -> folded input buffer.
  llvm::DenseMap<std::pair<mlir::Value, mlir::Value>, mlir::Value> folded_;
  /// Kiln ops emitted as part of a later op's stage.
  llvm::DenseSet<mlir::Operation *> deferred_;
  llvm::StringMap<int> kernelNames_;
  /// The readback: its argument and what it holds.
  int64_t readbackArg_ = -1;
  std::string readbackValues_;
  bool readbackConflict_ = false;
  int64_t vocab_ = 0;
  bool q8_ = false;
  /// The loop pass being lowered (0 outside a loop): the far field's
  /// push, capture and seal are emitted in pass 0 only.
  int64_t pass_ = 0;
  /// Inside a kiln.loop readout region (max_prob becomes stage.exit_test).
  double exitThreshold_ = 0;
  bool inReadout_ = false;
  /// Once the first exit test is emitted, every later dispatch of the call
  /// carries skip_if(exitFlag_)[0].
  mlir::Value exitFlag_;
  /// The device's pick of the step (stage.sample): token id, log-probability
  /// bits and continue word, a State buffer the runtime reads.
  mlir::Value sampled_;
  /// A gated head reads the session's head top-p (params word 7).
  bool headTopP_ = false;
  bool skipping_ = false;
  /// kiln.far_field_capture ops waiting for their prep (by far symbol).
  llvm::StringMap<kg::FarFieldCaptureOp> pendingCaptures_;
};

} // namespace kiln::lowering

#endif // KILN_LIB_CONVERSION_KILNTOSTAGE_LOWERING_H
