//===- PlanWriter.cpp - Final module -> flatbuffer plan -------------------===//
//
// The writer reads the contract of docs/pipeline.md and nothing else: func
// arguments with `stage.buffer` attributes give the buffers and weights,
// gpu.launch_func ops give the dispatches, func/module attributes give the
// parameter block, readback and device flags. Every missing or inconsistent
// piece is an error on the op that holds it, never a guess.
//
//===----------------------------------------------------------------------===//
#include "kiln/Target/Plan/PlanWriter.h"

#include "kiln/Dialect/Stage/IR/StageModule.h"
#include "kiln/Target/Plan/BarrierPlanner.h"
#include "kiln/Target/Plan/KernelAccess.h"
#include "kiln/schemas/plan_generated.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"

#include <algorithm>
#include <map>
#include <optional>

using namespace mlir;
namespace fb = flatbuffers;

namespace kiln {
namespace {

/// The contract's alignment of logical buffers inside a slot: the largest
/// minStorageBufferOffsetAlignment seen in practice.
constexpr int64_t kSlotAlignment = 256;
/// The longest name the runtime accepts (runtime/src/plan/plan_verifier.cc:
/// names are printed in messages and profiles).
constexpr size_t kMaxPlanNameBytes = 1024;

/// One func argument: a logical buffer placed in a slot.
struct LogicalBuffer {
  plan::BufferKind kind = plan::BufferKind::Scratch;
  std::string name;
  int64_t slot = 0;
  uint64_t byteOffset = 0;
  uint64_t byteSize = 0;
  stage::BufferAttr attr;
};

/// One physical buffer of the plan.
struct PhysicalBuffer {
  plan::BufferKind kind = plan::BufferKind::Scratch;
  uint64_t byteSize = 0;
  std::vector<std::string> names;
};

/// A plan kernel: one gpu.func with one fixed set of bindings (a descriptor
/// set is written once, so the same gpu.func launched on other buffers is a
/// second plan kernel sharing the code).
struct PlanKernel {
  std::string name;
  std::string symbol;
  std::vector<std::tuple<uint32_t, uint64_t, uint64_t>> ranges;
  std::vector<ArgumentAccess> access;
};

struct PlanDispatch {
  uint32_t kernel = 0;
  plan::Dim3 grid{1, 1, 1};
  std::string label;
  DispatchAccesses accesses;
  float estimatedMicros = -1; // stage.estimated_us of the fused dispatch
  plan::DispatchCalls calls = plan::DispatchCalls::Every;
};

struct PlanProgram {
  std::string name;
  uint32_t maxRows = 1;
  std::vector<PlanDispatch> dispatches;
  plan::ReadbackValues values = plan::ReadbackValues::LogProbs;
  uint32_t readSourceBuffer = 0, readBuffer = 0, count = 0;
  uint64_t readSourceOffset = 0, readOffset = 0;
  uint64_t bytesPerCall = 0;
};

struct ParamFieldSpec {
  std::string name;
  uint32_t byteOffset = 0;
  plan::ParamType type = plan::ParamType::U32;
  plan::ParamRule rule = plan::ParamRule::Constant;
  uint32_t row = 0, n = 0, constantU32 = 0;
  float constantF32 = 0;
};

struct WeightSpec {
  std::string name;
  plan::DType dtype = plan::DType::F32;
  std::vector<uint64_t> shape;
  uint32_t buffer = 0;
  uint64_t byteOffset = 0;
  plan::WeightLayout layout = plan::WeightLayout::Copy;
  uint64_t rowPitch = 0;
};

struct FlagSpec {
  std::string name;
  uint32_t buffer = 0;
  uint64_t byteOffset = 0;
  uint32_t resetValue = 0;
};

/// Finds `text` among the names flatc generated for an enum.
template <typename Enum>
std::optional<Enum> enumFromName(const char *const *names, StringRef text) {
  for (int i = 0; names[i]; ++i)
    if (text == names[i])
      return static_cast<Enum>(i);
  return std::nullopt;
}

std::string enumChoices(const char *const *names) {
  std::string out;
  for (int i = 0; names[i]; ++i)
    out += (i ? ", " : "") + std::string(names[i]);
  return out;
}

/// The plan file's copy of a stage buffer kind.
plan::BufferKind planKind(stage::BufferKind kind) {
  switch (kind) {
  case stage::BufferKind::Weight: return plan::BufferKind::Weight;
  case stage::BufferKind::State: return plan::BufferKind::State;
  case stage::BufferKind::Scratch: return plan::BufferKind::Scratch;
  case stage::BufferKind::Params: return plan::BufferKind::Params;
  case stage::BufferKind::Readback: return plan::BufferKind::Readback;
  }
  return plan::BufferKind::Scratch;
}

/// Bytes of a static memref with the identity layout.
std::optional<uint64_t> memrefBytes(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape() || !memref.getLayout().isIdentity())
    return std::nullopt;
  Type element = memref.getElementType();
  uint64_t elementBits = 0;
  if (auto vector = dyn_cast<VectorType>(element)) {
    if (!vector.getElementType().isIntOrFloat())
      return std::nullopt;
    elementBits = vector.getNumElements() * vector.getElementType().getIntOrFloatBitWidth();
  } else if (element.isIntOrFloat()) {
    elementBits = element.getIntOrFloatBitWidth();
  } else {
    return std::nullopt;
  }
  return memref.getNumElements() * elementBits / 8;
}

uint64_t alignUp(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

/// Required subgroup features from the OpCapability instructions of a SPIR-V
/// binary: exact, whatever lowering produced them.
uint32_t subgroupFeaturesOf(const std::vector<uint32_t> &words) {
  uint32_t features = 0;
  for (size_t i = 5; i < words.size();) {
    uint32_t length = words[i] >> 16, opcode = words[i] & 0xffff;
    if (length == 0)
      break;
    if (opcode == 17 /*OpCapability*/ && i + 1 < words.size()) {
      switch (words[i + 1]) {
      case 61: features |= 1u << 0; break; // GroupNonUniform
      case 62: features |= 1u << 1; break; // Vote
      case 63: features |= 1u << 2; break; // Arithmetic
      case 64: features |= 1u << 3; break; // Ballot
      case 65: features |= 1u << 4; break; // Shuffle
      case 66: features |= 1u << 5; break; // ShuffleRelative
      case 67: features |= 1u << 6; break; // Clustered
      case 68: features |= 1u << 7; break; // Quad
      default: break;
      }
    }
    i += length;
  }
  // Every non-uniform capability implies the basic one.
  return features ? features | 1u : 0;
}

class PlanWriter {
public:
  PlanWriter(ModuleOp module, const PlanKernelBinaries &kernels, const PlanWriterOptions &options)
      : module_(module), compiled_(kernels), options_(options) {}

  FailureOr<std::vector<uint8_t>> run();

private:
  LogicalResult readModuleAttributes();
  FailureOr<std::vector<LogicalBuffer>> readArguments(func::FuncOp func);
  LogicalResult placeSlots(func::FuncOp func, const std::vector<LogicalBuffer> &args);
  LogicalResult readWeights(func::FuncOp func, const std::vector<LogicalBuffer> &args);
  LogicalResult readParams(func::FuncOp func, const std::vector<LogicalBuffer> &args);
  LogicalResult readProgram(func::FuncOp func, const std::vector<LogicalBuffer> &args);
  LogicalResult readReadback(func::FuncOp func, const std::vector<LogicalBuffer> &args,
                             PlanProgram &program);
  LogicalResult readDeviceFlags(func::FuncOp func, const std::vector<LogicalBuffer> &args);
  /// stage.sampled: where decode leaves its device-side pick, and whether it draws.
  LogicalResult readSampled(func::FuncOp func, const std::vector<LogicalBuffer> &args);
  FailureOr<uint32_t> kernelFor(gpu::LaunchFuncOp launch, gpu::GPUFuncOp kernel,
                                const std::vector<LogicalBuffer> &args);
  uint32_t bufferOf(int64_t slot) const { return slotToBuffer_.at(slot); }
  FailureOr<std::vector<uint8_t>> serialize();

  ModuleOp module_;
  const PlanKernelBinaries &compiled_;
  const PlanWriterOptions &options_;
  std::string family_, weightFormat_, configJson_;
  uint32_t vocabSize_ = 0, maxPosition_ = 0;

  std::map<int64_t, PhysicalBuffer> slots_;
  std::map<int64_t, uint32_t> slotToBuffer_;
  std::vector<PhysicalBuffer> buffers_;
  std::optional<int64_t> paramsSlot_;
  uint64_t paramsBytes_ = 0;

  std::vector<WeightSpec> weights_;
  std::map<std::string, size_t> weightIndex_;
  std::vector<ParamFieldSpec> params_;
  std::vector<FlagSpec> flags_;
  std::vector<PlanKernel> kernels_;
  std::map<std::string, std::vector<ArgumentAccess>> accessCache_;
  std::map<std::string, const KernelBinary *> binaries_;
  std::vector<PlanProgram> programs_;
  /// Programs whose readback needs a Readback buffer of its own: the index
  /// of the program and the byte size.
  std::vector<std::pair<size_t, uint64_t>> pendingReadbacks_;
  /// (buffer, byte offset) of decode's device-side pick, if any.
  std::optional<std::pair<uint32_t, uint64_t>> greedy_;
  /// The pick also draws at the session's temperature and top-p; a continue word
  /// follows it.
  bool drawsOnDevice_ = false, stopFlag_ = false;
};

LogicalResult PlanWriter::readModuleAttributes() {
  auto str = [&](StringRef name, std::string &out) -> LogicalResult {
    auto attr = module_->getAttrOfType<StringAttr>(name);
    if (!attr)
      return module_.emitError("plan writer: the module has no string attribute '")
             << name << "' (docs/pipeline.md)";
    out = attr.getValue().str();
    return success();
  };
  auto num = [&](StringRef name, uint32_t &out) -> LogicalResult {
    auto attr = module_->getAttrOfType<IntegerAttr>(name);
    if (!attr || attr.getInt() <= 0 || attr.getInt() > UINT32_MAX)
      return module_.emitError("plan writer: the module needs a positive integer attribute '")
             << name << "' (docs/pipeline.md)";
    out = static_cast<uint32_t>(attr.getInt());
    return success();
  };
  if (failed(str("kiln.family", family_)) || failed(str("kiln.weight_format", weightFormat_)) ||
      failed(num("kiln.vocab_size", vocabSize_)) || failed(num("kiln.max_position", maxPosition_)))
    return failure();
  if (family_ != "embryo" && family_ != "dory")
    return module_.emitError("plan writer: kiln.family '") << family_
           << "' is neither 'embryo' nor 'dory'";
  if (weightFormat_ != "f16" && weightFormat_ != "q8_2f")
    return module_.emitError("plan writer: kiln.weight_format '") << weightFormat_
           << "' is neither 'f16' nor 'q8_2f'";
  if (auto config = module_->getAttrOfType<StringAttr>("kiln.config"))
    configJson_ = config.getValue().str();
  return success();
}

FailureOr<std::vector<LogicalBuffer>> PlanWriter::readArguments(func::FuncOp func) {
  std::vector<LogicalBuffer> args;
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    auto fail = [&](const Twine &what) {
      return func.emitError("plan writer: argument ") << i << " of @" << func.getSymName()
             << ": " << what, failure();
    };
    stage::BufferAttr attr = stage::bufferAttrOf(func, i);
    if (!attr)
      return fail("has no stage.buffer attribute");
    if (!attr.getSlot())
      return fail("'" + attr.getName() + "' has no slot (kiln-plan-memory places buffers)");
    LogicalBuffer buffer;
    buffer.attr = attr;
    int64_t offset = attr.getByteOffset();
    if (offset % kSlotAlignment != 0)
      return fail("byte_offset " + Twine(offset) + " is not a multiple of " +
                  Twine(kSlotAlignment));
    std::optional<uint64_t> bytes = memrefBytes(func.getArgument(i).getType());
    if (!bytes || *bytes == 0 || *bytes % 4 != 0)
      return fail("type is not a static, identity-layout memref of whole words");
    buffer.kind = planKind(attr.getKind());
    buffer.name = attr.getName().str();
    buffer.slot = *attr.getSlot();
    buffer.byteOffset = static_cast<uint64_t>(offset);
    // A multi-row program's activation holds `rows` of its type.
    buffer.byteSize = *bytes * static_cast<uint64_t>(attr.getRows());
    args.push_back(std::move(buffer));
  }
  return args;
}

LogicalResult PlanWriter::placeSlots(func::FuncOp func,
                                     const std::vector<LogicalBuffer> &args) {
  for (const LogicalBuffer &arg : args) {
    auto [it, inserted] = slots_.try_emplace(arg.slot);
    PhysicalBuffer &slot = it->second;
    if (inserted)
      slot.kind = arg.kind;
    else if (slot.kind != arg.kind)
      return func.emitError("plan writer: @") << func.getSymName() << " argument '"
             << arg.name << "' of kind " << plan::EnumNameBufferKind(arg.kind)
             << " shares slot " << arg.slot << " with a buffer of kind "
             << plan::EnumNameBufferKind(slot.kind);
    slot.byteSize = std::max(slot.byteSize, arg.byteOffset + arg.byteSize);
    if (std::find(slot.names.begin(), slot.names.end(), arg.name) == slot.names.end())
      slot.names.push_back(arg.name);
    if (arg.kind == plan::BufferKind::Params) {
      if (paramsSlot_ && *paramsSlot_ != arg.slot)
        return func.emitError("plan writer: two params buffers (slots ")
               << *paramsSlot_ << " and " << arg.slot << "); a plan has exactly one";
      paramsSlot_ = arg.slot;
      paramsBytes_ = std::max(paramsBytes_, arg.byteOffset + arg.byteSize);
    }
  }
  return success();
}

LogicalResult PlanWriter::readWeights(func::FuncOp func,
                                      const std::vector<LogicalBuffer> &args) {
  for (const LogicalBuffer &arg : args) {
    if (arg.kind != plan::BufferKind::Weight)
      continue;
    ArrayRef<stage::WeightTensorAttr> tensors = arg.attr.getTensors();
    auto fail = [&](const Twine &what) {
      return func.emitError("plan writer: weight '") << arg.name << "': " << what, failure();
    };
    if (tensors.empty())
      return fail("has no `tensors` array");
    for (stage::WeightTensorAttr tensor : tensors) {
      WeightSpec spec;
      spec.name = tensor.getName().str();
      auto parsedType =
          enumFromName<plan::DType>(plan::EnumNamesDType(), tensor.getDtype());
      if (!parsedType)
        return fail("tensor '" + spec.name + "': dtype '" + tensor.getDtype() +
                    "' is not one of " + enumChoices(plan::EnumNamesDType()));
      auto parsedLayout =
          enumFromName<plan::WeightLayout>(plan::EnumNamesWeightLayout(), tensor.getLayout());
      if (!parsedLayout)
        return fail("tensor '" + spec.name + "': layout '" + tensor.getLayout() +
                    "' is not one of " + enumChoices(plan::EnumNamesWeightLayout()));
      for (int64_t dim : tensor.getShape())
        spec.shape.push_back(static_cast<uint64_t>(dim));
      spec.dtype = *parsedType;
      spec.layout = *parsedLayout;
      spec.buffer = bufferOf(arg.slot);
      spec.byteOffset = arg.byteOffset + static_cast<uint64_t>(tensor.getByteOffset());
      spec.rowPitch = static_cast<uint64_t>(tensor.getRowPitchBytes());
      auto [it, inserted] = weightIndex_.try_emplace(spec.name, weights_.size());
      if (inserted) {
        weights_.push_back(spec);
        continue;
      }
      const WeightSpec &seen = weights_[it->second];
      if (seen.buffer != spec.buffer || seen.byteOffset != spec.byteOffset ||
          seen.layout != spec.layout || seen.shape != spec.shape || seen.dtype != spec.dtype)
        return fail("tensor '" + spec.name + "' is placed differently by another program");
    }
  }
  return success();
}

LogicalResult PlanWriter::readParams(func::FuncOp func, const std::vector<LogicalBuffer> &args) {
  auto addField = [&](ParamFieldSpec field) -> LogicalResult {
    uint32_t words = field.rule == plan::ParamRule::Tokens ? std::max(field.n, 1u) : 1;
    if (field.byteOffset + 4ull * words > paramsBytes_)
      return func.emitError("plan writer: parameter field '") << field.name << "' at byte "
             << field.byteOffset << " does not fit the " << paramsBytes_ << "-byte params buffer";
    for (const ParamFieldSpec &seen : params_) {
      if (seen.name == field.name) {
        if (seen.byteOffset != field.byteOffset || seen.rule != field.rule ||
            seen.row != field.row || seen.n != field.n)
          return func.emitError("plan writer: parameter field '") << field.name
                 << "' is defined differently by another program";
        return success();
      }
      uint32_t seenWords = seen.rule == plan::ParamRule::Tokens ? std::max(seen.n, 1u) : 1;
      if (field.byteOffset < seen.byteOffset + 4 * seenWords &&
          seen.byteOffset < field.byteOffset + 4 * words)
        return func.emitError("plan writer: parameter field '") << field.name
               << "' overlaps field '" << seen.name << "'";
    }
    params_.push_back(std::move(field));
    return success();
  };
  // The fixed words every kernel reads (docs/stages.md).
  if (params_.empty() && paramsSlot_) {
    ParamFieldSpec token{"token", 0, plan::ParamType::U32, plan::ParamRule::Token};
    ParamFieldSpec position{"position", 4, plan::ParamType::U32, plan::ParamRule::Position};
    ParamFieldSpec gate{"head_gate", 8, plan::ParamType::F32, plan::ParamRule::HeadGate};
    for (const ParamFieldSpec &field : {token, position, gate})
      if (failed(addField(field)))
        return failure();
  }
  auto extra = func->getAttrOfType<ArrayAttr>(stage::kParamsAttrName);
  if (!extra)
    return success();
  for (Attribute element : extra) {
    auto entry = dyn_cast<stage::ParamFieldAttr>(element);
    if (!entry)
      return func.emitError("plan writer: a stage.params entry is not a #stage.param");
    auto parsed = enumFromName<plan::ParamRule>(plan::EnumNamesParamRule(), entry.getRule());
    if (!parsed)
      return func.emitError("plan writer: parameter '") << entry.getName() << "': rule '"
             << entry.getRule() << "' is not one of " << enumChoices(plan::EnumNamesParamRule());
    ParamFieldSpec field;
    field.name = entry.getName().str();
    field.byteOffset = static_cast<uint32_t>(entry.getWord() * 4);
    field.rule = *parsed;
    if (std::optional<int64_t> n = entry.getN())
      field.n = static_cast<uint32_t>(*n);
    if (std::optional<int64_t> row = entry.getRow())
      field.row = static_cast<uint32_t>(*row);
    bool isFloat = field.rule == plan::ParamRule::HeadGate ||
                   field.rule == plan::ParamRule::Temperature ||
                   field.rule == plan::ParamRule::TopP ||
                   field.rule == plan::ParamRule::HeadTopP;
    if (field.rule == plan::ParamRule::Constant) {
      Attribute value = entry.getValue();
      if (auto f = dyn_cast_or_null<FloatAttr>(value)) {
        isFloat = true;
        field.constantF32 = static_cast<float>(f.getValueAsDouble());
      } else if (auto i = dyn_cast_or_null<IntegerAttr>(value)) {
        field.constantU32 = static_cast<uint32_t>(i.getInt());
      } else {
        return func.emitError("plan writer: constant parameter '") << field.name
               << "' needs an integer or float `value`";
      }
    }
    bool needsN = field.rule == plan::ParamRule::PositionModN ||
                  field.rule == plan::ParamRule::MinPositionPlus1N ||
                  field.rule == plan::ParamRule::Tokens;
    if (needsN && field.n == 0)
      return func.emitError("plan writer: parameter '") << field.name << "' (rule "
             << entry.getRule() << ") needs n > 0";
    field.type = isFloat ? plan::ParamType::F32 : plan::ParamType::U32;
    if (failed(addField(std::move(field))))
      return failure();
  }
  return success();
}

FailureOr<uint32_t> PlanWriter::kernelFor(gpu::LaunchFuncOp launch, gpu::GPUFuncOp kernel,
                                          const std::vector<LogicalBuffer> &args) {
  std::string symbol = kernel.getName().str();
  auto cached = accessCache_.find(symbol);
  if (cached == accessCache_.end())
    cached = accessCache_.emplace(symbol, analyseKernelAccess(kernel)).first;
  std::vector<std::tuple<uint32_t, uint64_t, uint64_t>> ranges;
  for (Value operand : launch.getKernelOperands()) {
    auto arg = dyn_cast<BlockArgument>(operand);
    if (!arg || arg.getOwner()->getParentOp() != launch->getParentOp())
      return launch.emitError("plan writer: every gpu.launch_func operand must be an "
                              "argument of the host func (docs/pipeline.md)"),
             failure();
    const LogicalBuffer &buffer = args[arg.getArgNumber()];
    ranges.emplace_back(bufferOf(buffer.slot), buffer.byteOffset, buffer.byteSize);
  }
  for (size_t i = 0; i < kernels_.size(); ++i)
    if (kernels_[i].symbol == symbol && kernels_[i].ranges == ranges)
      return static_cast<uint32_t>(i);
  PlanKernel entry;
  entry.symbol = symbol;
  entry.name = symbol;
  size_t copies = 0;
  for (const PlanKernel &other : kernels_)
    copies += other.symbol == symbol;
  if (copies)
    entry.name += "#" + std::to_string(copies);
  entry.ranges = std::move(ranges);
  entry.access = cached->second;
  kernels_.push_back(std::move(entry));
  return static_cast<uint32_t>(kernels_.size() - 1);
}

LogicalResult PlanWriter::readReadback(func::FuncOp func, const std::vector<LogicalBuffer> &args,
                                       PlanProgram &program) {
  auto readback = func->getAttrOfType<stage::ReadbackAttr>(stage::kReadbackAttrName);
  if (!readback)
    return func.emitError("plan writer: @") << func.getSymName()
           << " has no stage.readback attribute (docs/pipeline.md)";
  if (readback.getArg() >= static_cast<int64_t>(args.size()))
    return func.emitError("plan writer: stage.readback names argument ")
           << readback.getArg() << " of " << args.size();
  const LogicalBuffer &source = args[readback.getArg()];
  uint64_t extra = static_cast<uint64_t>(readback.getByteOffset());
  int64_t count = readback.getCount();
  if (count != vocabSize_)
    return func.emitError("plan writer: stage.readback count ") << count
           << " differs from kiln.vocab_size " << vocabSize_;
  if (extra + 4ull * count > source.byteSize)
    return func.emitError("plan writer: stage.readback range (byte ") << extra << ", "
           << count << " values) does not fit argument '" << source.name << "'";
  if (!readback.getValues().empty()) {
    auto parsed = enumFromName<plan::ReadbackValues>(plan::EnumNamesReadbackValues(),
                                                     readback.getValues());
    if (!parsed)
      return func.emitError("plan writer: stage.readback values '") << readback.getValues()
             << "' is not one of " << enumChoices(plan::EnumNamesReadbackValues());
    program.values = *parsed;
  }
  program.count = static_cast<uint32_t>(count);
  program.readSourceBuffer = bufferOf(source.slot);
  program.readSourceOffset = source.byteOffset + extra;
  if (source.kind == plan::BufferKind::Readback) {
    program.readBuffer = program.readSourceBuffer;
    program.readOffset = program.readSourceOffset;
  } else {
    // Kernels wrote a device-local buffer: the runtime copies into a
    // host-visible one the writer adds (serialize() fills the index).
    pendingReadbacks_.emplace_back(programs_.size(), 4ull * program.count);
  }
  return success();
}

LogicalResult PlanWriter::readSampled(func::FuncOp func, const std::vector<LogicalBuffer> &args) {
  auto sampled = func->getAttrOfType<stage::SampledAttr>(stage::kSampledAttrName);
  if (!sampled)
    return success();
  if (sampled.getArg() >= static_cast<int64_t>(args.size()))
    return func.emitError("plan writer: stage.sampled names argument ")
           << sampled.getArg() << " of " << args.size();
  const LogicalBuffer &buffer = args[sampled.getArg()];
  uint64_t extra = static_cast<uint64_t>(sampled.getByteOffset());
  stopFlag_ = sampled.getStopFlag();
  const uint64_t bytes = stopFlag_ ? 12 : 8;
  if (buffer.kind != plan::BufferKind::State || extra + bytes > buffer.byteSize)
    return func.emitError("plan writer: stage.sampled must name ")
           << bytes << " bytes of a state argument, got '" << buffer.name << "'";
  greedy_ = std::make_pair(bufferOf(buffer.slot), buffer.byteOffset + extra);
  drawsOnDevice_ = sampled.getDraws();
  // stage.sample reads fixed words: the fields there must be the session's sampling
  // options and stop token.
  std::vector<std::pair<int64_t, plan::ParamRule>> words;
  if (drawsOnDevice_)
    words = {{stage::kTemperatureWord, plan::ParamRule::Temperature},
             {stage::kTopPWord, plan::ParamRule::TopP},
             {stage::kRandomWord, plan::ParamRule::RandomU32}};
  if (stopFlag_)
    words.emplace_back(stage::kStopTokenWord, plan::ParamRule::StopToken);
  for (auto [word, rule] : words) {
    bool found = llvm::any_of(params_, [&](const ParamFieldSpec &field) {
      return field.byteOffset == 4 * word && field.rule == rule;
    });
    if (!found)
      return func.emitError("plan writer: stage.sampled reads params word ")
             << word << " is not a " << plan::EnumNameParamRule(rule) << " field";
  }
  return success();
}

LogicalResult PlanWriter::readDeviceFlags(func::FuncOp func,
                                          const std::vector<LogicalBuffer> &args) {
  auto flags = func->getAttrOfType<ArrayAttr>(stage::kDeviceFlagsAttrName);
  if (!flags)
    return success();
  for (Attribute entry : flags) {
    auto device = dyn_cast<stage::DeviceFlagAttr>(entry);
    if (!device || device.getArg() >= static_cast<int64_t>(args.size()))
      return func.emitError("plan writer: a stage.device_flags entry must be a "
                            "#stage.device_flag naming one of the program's arguments");
    const LogicalBuffer &buffer = args[device.getArg()];
    FlagSpec flag;
    flag.name = device.getName().str();
    uint64_t extra = static_cast<uint64_t>(device.getByteOffset());
    if (extra + 4 > buffer.byteSize)
      return func.emitError("plan writer: device flag '") << flag.name
             << "' does not fit argument '" << buffer.name << "'";
    flag.buffer = bufferOf(buffer.slot);
    flag.byteOffset = buffer.byteOffset + extra;
    flag.resetValue = static_cast<uint32_t>(device.getResetValue());
    bool known = false;
    for (const FlagSpec &seen : flags_)
      if (seen.name == flag.name) {
        known = true;
        if (seen.buffer != flag.buffer || seen.byteOffset != flag.byteOffset ||
            seen.resetValue != flag.resetValue)
          return func.emitError("plan writer: device flag '") << flag.name
                 << "' is defined differently by another program";
      }
    if (!known)
      flags_.push_back(std::move(flag));
  }
  return success();
}

LogicalResult PlanWriter::readProgram(func::FuncOp func, const std::vector<LogicalBuffer> &args) {
  PlanProgram program;
  program.name = func.getSymName().str();
  if (auto rows = func->getAttrOfType<IntegerAttr>("kiln.max_rows")) {
    if (rows.getInt() < 1)
      return func.emitError("plan writer: kiln.max_rows must be >= 1");
    program.maxRows = static_cast<uint32_t>(rows.getInt());
  }
  if (program.name == "decode" && program.maxRows != 1)
    return func.emitError("plan writer: @decode carries one row; kiln.max_rows must be 1");
  for (Operation &op : func.getBody().front()) {
    if (isa<arith::ConstantOp, func::ReturnOp>(op))
      continue;
    auto launch = dyn_cast<gpu::LaunchFuncOp>(op);
    if (!launch)
      return op.emitError("plan writer: host op '") << op.getName()
             << "' is not a gpu.launch_func (run convert-stage-to-gpu first)";
    auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
        launch, launch.getKernel());
    if (!kernel)
      return launch.emitError("plan writer: no gpu.func ") << launch.getKernel();
    auto it = binaries_.find(kernel.getName().str());
    if (it == binaries_.end())
      return launch.emitError("plan writer: no SPIR-V for kernel ") << kernel.getName();
    const KernelBinary &binary = *it->second;
    PlanDispatch dispatch;
    uint32_t grid[3], block[3];
    Value gridValues[3] = {launch.getGridSizeX(), launch.getGridSizeY(), launch.getGridSizeZ()};
    Value blockValues[3] = {launch.getBlockSizeX(), launch.getBlockSizeY(),
                            launch.getBlockSizeZ()};
    for (int d = 0; d < 3; ++d) {
      std::optional<int64_t> g = getConstantIntValue(gridValues[d]);
      std::optional<int64_t> b = getConstantIntValue(blockValues[d]);
      if (!g || !b || *g < 1 || *b < 1 || *g > UINT32_MAX)
        return launch.emitError("plan writer: grid and block sizes must be positive constants");
      grid[d] = static_cast<uint32_t>(*g);
      block[d] = static_cast<uint32_t>(*b);
      if (block[d] != static_cast<uint32_t>(binary.workgroupSize[d]))
        return launch.emitError("plan writer: block size ") << block[d] << " in dimension "
               << d << " differs from kernel " << kernel.getName() << "'s workgroup size "
               << binary.workgroupSize[d];
    }
    FailureOr<uint32_t> index = kernelFor(launch, kernel, args);
    if (failed(index))
      return failure();
    const PlanKernel &planKernel = kernels_[*index];
    dispatch.kernel = *index;
    dispatch.grid = plan::Dim3(grid[0], grid[1], grid[2]);
    // Merged kernels serve several dispatches; each keeps its own name.
    if (auto label = launch->getAttrOfType<StringAttr>(stage::kDispatchLabelAttr))
      dispatch.label = label.str();
    else
      dispatch.label = planKernel.name;
    if (auto estimate = launch->getAttrOfType<FloatAttr>(stage::kEstimatedMicrosAttr))
      dispatch.estimatedMicros = static_cast<float>(estimate.getValueAsDouble());
    if (launch->hasAttr(stage::kFirstCallOnlyAttr) && !options_.everyDispatchEveryCall)
      dispatch.calls = plan::DispatchCalls::First;
    // What a kernel binds only for its prefetches orders nothing: weights
    // are never written in a call, and nothing reads the sink, so neither
    // needs a barrier. The weights are counted where a later dispatch reads
    // them again, from the cache.
    ArrayRef<int64_t> prefetchOnly;
    if (auto only = launch->getAttrOfType<DenseI64ArrayAttr>(stage::kPrefetchOnlyArgsAttr))
      prefetchOnly = only.asArrayRef();
    for (size_t b = 0; b < planKernel.ranges.size(); ++b) {
      if (llvm::is_contained(prefetchOnly, static_cast<int64_t>(b)))
        continue;
      auto [buffer, offset, size] = planKernel.ranges[b];
      BufferAccess access{buffer, offset, size, planKernel.access[b].reads,
                          planKernel.access[b].writes};
      dispatch.accesses.push_back(access);
      // A range bound twice (an activation's vector view beside its f32
      // binding) is read once.
      bool seen = std::find(planKernel.ranges.begin(), planKernel.ranges.begin() + b,
                            planKernel.ranges[b]) != planKernel.ranges.begin() + b;
      // A call after the first leaves a first-call dispatch out.
      if (!seen && dispatch.calls == plan::DispatchCalls::Every)
        program.bytesPerCall += size;
    }
    program.dispatches.push_back(std::move(dispatch));
  }
  if (program.dispatches.empty())
    return func.emitError("plan writer: @") << program.name << " has no gpu.launch_func";
  if (failed(readReadback(func, args, program)))
    return failure();
  programs_.push_back(std::move(program));
  return success();
}

FailureOr<std::vector<uint8_t>> PlanWriter::run() {
  if (failed(readModuleAttributes()))
    return failure();
  SmallVector<func::FuncOp> funcs;
  for (auto func : module_.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    StringRef name = func.getSymName();
    if (name != "decode" && name != "prefill")
      return func.emitError("plan writer: @") << name
             << " is not a program (expected @decode and optionally @prefill)";
    funcs.push_back(func);
  }
  llvm::stable_sort(funcs, [](func::FuncOp a, func::FuncOp b) {
    return a.getSymName() == "decode" && b.getSymName() != "decode";
  });
  if (funcs.empty() || funcs.front().getSymName() != "decode")
    return module_.emitError("plan writer: the module has no @decode program"), failure();

  for (const KernelBinary &binary : compiled_.spirv)
    binaries_[binary.name] = &binary;

  std::vector<std::vector<LogicalBuffer>> arguments;
  for (func::FuncOp func : funcs) {
    FailureOr<std::vector<LogicalBuffer>> args = readArguments(func);
    if (failed(args) || failed(placeSlots(func, *args)))
      return failure();
    arguments.push_back(std::move(*args));
  }
  if (!paramsSlot_)
    return module_.emitError("plan writer: no argument of kind 'params'; a plan needs one"),
           failure();
  for (auto &[slot, buffer] : slots_) {
    slotToBuffer_[slot] = static_cast<uint32_t>(buffers_.size());
    buffer.byteSize = alignUp(buffer.byteSize, 4);
    buffers_.push_back(buffer);
  }
  for (size_t i = 0; i < funcs.size(); ++i)
    if (failed(readWeights(funcs[i], arguments[i])) ||
        failed(readParams(funcs[i], arguments[i])) ||
        failed(readDeviceFlags(funcs[i], arguments[i])) ||
        failed(readSampled(funcs[i], arguments[i])) ||
        failed(readProgram(funcs[i], arguments[i])))
      return failure();
  return serialize();
}

FailureOr<std::vector<uint8_t>> PlanWriter::serialize() {
  for (auto [programIndex, bytes] : pendingReadbacks_) {
    PlanProgram &program = programs_[programIndex];
    PhysicalBuffer readback;
    readback.kind = plan::BufferKind::Readback;
    readback.byteSize = bytes;
    readback.names.push_back("readback." + program.name);
    program.readBuffer = static_cast<uint32_t>(buffers_.size());
    program.readOffset = 0;
    buffers_.push_back(std::move(readback));
  }

  fb::FlatBufferBuilder fbb(1 << 20);
  std::vector<fb::Offset<plan::Buffer>> buffers;
  for (size_t i = 0; i < buffers_.size(); ++i) {
    // A scratch slot shared by many planes joins their names, as many as fit
    // the runtime's limit on a name (plan_verifier.cc, 1,024 bytes), then
    // counts the rest: a 1B model's busiest slot holds about 80.
    std::string name;
    const std::vector<std::string> &parts = buffers_[i].names;
    for (size_t p = 0; p < parts.size(); ++p) {
      std::string rest = "+" + std::to_string(parts.size() - p) + " more";
      if (name.size() + 1 + parts[p].size() + rest.size() > kMaxPlanNameBytes) {
        name += rest;
        break;
      }
      name += (name.empty() ? "" : "+") + parts[p];
    }
    buffers.push_back(plan::CreateBufferDirect(fbb, static_cast<uint32_t>(i), buffers_[i].kind,
                                               buffers_[i].byteSize, true, name.c_str()));
  }
  std::vector<fb::Offset<plan::WeightTensor>> weights;
  for (const WeightSpec &w : weights_)
    weights.push_back(plan::CreateWeightTensorDirect(fbb, w.name.c_str(), w.dtype, &w.shape,
                                                     w.buffer, w.byteOffset, w.layout,
                                                     w.rowPitch));
  std::vector<fb::Offset<plan::Kernel>> kernels;
  for (const PlanKernel &k : kernels_) {
    const KernelBinary &binary = *binaries_.at(k.symbol);
    std::vector<fb::Offset<plan::Binding>> bindings;
    for (size_t b = 0; b < k.ranges.size(); ++b) {
      auto [buffer, offset, size] = k.ranges[b];
      plan::Access access = k.access[b].writes
                                ? (k.access[b].reads ? plan::Access::ReadWrite : plan::Access::Write)
                                : plan::Access::Read;
      bindings.push_back(plan::CreateBinding(fbb, static_cast<uint32_t>(b), buffer, access,
                                             plan::DescriptorKind::StorageBuffer, offset, size));
    }
    std::string msl;
    plan::Dim3 workgroup(binary.workgroupSize[0], binary.workgroupSize[1],
                         binary.workgroupSize[2]);
    plan::Dim3 threadgroup = workgroup;
    if (options_.embedMSL) {
      auto it = compiled_.msl.find(k.symbol);
      if (it == compiled_.msl.end())
        return module_.emitError("plan writer: no MSL for kernel ") << k.symbol, failure();
      msl = it->second.source;
      const auto &size = it->second.threadgroupSize;
      threadgroup = plan::Dim3(size[0], size[1], size[2]);
    }
    auto features = static_cast<plan::SubgroupFeature>(subgroupFeaturesOf(binary.words));
    kernels.push_back(plan::CreateKernelDirect(
        fbb, k.name.c_str(), options_.embedSPIRV ? &binary.words : nullptr,
        options_.embedMSL ? msl.c_str() : nullptr, k.symbol.c_str(), &workgroup, &threadgroup,
        &bindings, 0, binary.requiredSubgroupSize, features));
  }
  std::vector<fb::Offset<plan::ParamField>> fields;
  for (const ParamFieldSpec &f : params_)
    fields.push_back(plan::CreateParamFieldDirect(fbb, f.name.c_str(), f.byteOffset, f.type,
                                                  f.rule, f.row, f.n, f.constantU32,
                                                  f.constantF32));
  auto params = plan::CreateParamBlockDirect(fbb, bufferOf(*paramsSlot_),
                                             static_cast<uint32_t>(paramsBytes_), &fields);
  std::vector<fb::Offset<plan::Program>> programs;
  for (PlanProgram &p : programs_) {
    std::vector<DispatchAccesses> accesses;
    for (const PlanDispatch &d : p.dispatches)
      accesses.push_back(d.accesses);
    std::vector<bool> barriers = planBarriers(accesses);
    if (options_.barrierEveryDispatch)
      for (size_t i = 1; i < barriers.size(); ++i)
        barriers[i] = true;
    std::vector<fb::Offset<plan::Dispatch>> dispatches;
    for (size_t i = 0; i < p.dispatches.size(); ++i) {
      const PlanDispatch &d = p.dispatches[i];
      dispatches.push_back(plan::CreateDispatchDirect(fbb, d.kernel, &d.grid,
                                                      plan::GridMode::Static, 0, 0, barriers[i],
                                                      nullptr, d.label.c_str(),
                                                      d.estimatedMicros, d.calls));
    }
    auto readback = plan::CreateReadback(fbb, p.readSourceBuffer, p.readSourceOffset,
                                         p.readBuffer, p.readOffset, p.count, p.values);
    programs.push_back(plan::CreateProgramDirect(fbb, p.name.c_str(), p.maxRows, &dispatches,
                                                 readback, p.bytesPerCall));
  }
  std::vector<fb::Offset<plan::DeviceFlag>> flags;
  for (const FlagSpec &f : flags_)
    flags.push_back(plan::CreateDeviceFlagDirect(fbb, f.name.c_str(), f.buffer, f.byteOffset,
                                                 f.resetValue));
  // Embryo's hierarchical head has a gate the session chooses; Dory has none.
  fb::Offset<plan::DeviceGreedy> greedy;
  if (greedy_)
    greedy = plan::CreateDeviceGreedy(fbb, greedy_->first, greedy_->second, stopFlag_);
  auto sampling = plan::CreateSampling(fbb,
                                       drawsOnDevice_ ? plan::SamplingSite::Device
                                                      : plan::SamplingSite::Host,
                                       family_ == "embryo" ? plan::HeadGateRule::SessionOption
                                                           : plan::HeadGateRule::None,
                                       greedy);
  auto root = plan::CreatePlanDirect(
      fbb, static_cast<uint32_t>(plan::Version::Current),
      options_.embedSPIRV ? plan::Target::Vulkan : plan::Target::Metal, options_.producer.c_str(),
      family_.c_str(), configJson_.c_str(), weightFormat_.c_str(), vocabSize_, maxPosition_,
      &buffers, &weights, &kernels, params, &programs, &flags, sampling);
  plan::FinishPlanBuffer(fbb, root);
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

} // namespace

FailureOr<std::vector<uint8_t>> buildPlan(ModuleOp module, const PlanKernelBinaries &kernels,
                                          const PlanWriterOptions &options) {
  if (!options.embedSPIRV && !options.embedMSL)
    return module.emitError("plan writer: neither SPIR-V nor MSL requested"), failure();
  return PlanWriter(module, kernels, options).run();
}

} // namespace kiln
