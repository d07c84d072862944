//===- StageDialect.cpp - Kiln's stage dialect ----------------------------===//
#include "kiln/Dialect/Stage/IR/StageDialect.h"
#include "kiln/Dialect/Stage/IR/StageModule.h"
#include "kiln/Dialect/Stage/IR/StageOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace kiln::stage;

#include "kiln/Dialect/Stage/IR/StageDialect.cpp.inc"
#include "kiln/Dialect/Stage/IR/StageEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "kiln/Dialect/Stage/IR/StageAttrs.cpp.inc"

void StageDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "kiln/Dialect/Stage/IR/StageOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "kiln/Dialect/Stage/IR/StageAttrs.cpp.inc"
      >();
}

namespace {
/// Checks that `attr` is an array of AttrT; `check` each entry.
template <typename AttrT>
LogicalResult verifyArrayOf(Operation *op, NamedAttribute attr, StringRef entry,
                            function_ref<LogicalResult(AttrT)> check) {
  auto array = dyn_cast<ArrayAttr>(attr.getValue());
  if (!array)
    return op->emitOpError("'") << attr.getName().getValue() << "' must be an array of #stage."
                                << entry;
  for (Attribute element : array) {
    auto typed = dyn_cast<AttrT>(element);
    if (!typed)
      return op->emitOpError("'") << attr.getName().getValue() << "' holds " << element
                                  << ", not a #stage." << entry;
    if (failed(check(typed)))
      return failure();
  }
  return success();
}
} // namespace

LogicalResult StageDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == kEstimatedMicrosAttr) {
    if (!isa<FloatAttr>(attr.getValue()))
      return op->emitOpError("'") << name << "' must be a float (µs)";
    return success();
  }
  if (name == kDispatchLabelAttr) {
    if (!isa<StringAttr>(attr.getValue()))
      return op->emitOpError("'") << name << "' must be a string";
    return success();
  }
  if (name == kFirstCallOnlyAttr) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitOpError("'") << name << "' must be a unit attribute";
    return success();
  }
  if (name == kPrefetchOnlyArgsAttr) {
    auto indices = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (!indices || llvm::any_of(indices.asArrayRef(), [&](int64_t i) {
          return i < 0 || i >= static_cast<int64_t>(op->getNumOperands());
        }))
      return op->emitOpError("'") << name << "' must be an array of operand indices";
    return success();
  }
  if (name == kTargetNameAttr) {
    if (!isa<ModuleOp>(op) || !isa<StringAttr>(attr.getValue()))
      return op->emitOpError("'") << name << "' must be a string on a module";
    return success();
  }
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (!func)
    return op->emitOpError("'") << name << "' belongs on a stage program (a function)";
  int64_t args = func.getNumArguments();
  // An argument index the attribute names must be one of the function's.
  auto argInRange = [&](int64_t arg) -> LogicalResult {
    if (arg >= args)
      return op->emitOpError("'") << name << "' names argument " << arg << " of " << args;
    return success();
  };
  if (name == kSlotsAttrName)
    return verifyArrayOf<SlotAttr>(op, attr, "slot", [](SlotAttr) { return success(); });
  if (name == kParamsAttrName)
    return verifyArrayOf<ParamFieldAttr>(op, attr, "param",
                                         [](ParamFieldAttr) { return success(); });
  if (name == kDeviceFlagsAttrName)
    return verifyArrayOf<DeviceFlagAttr>(
        op, attr, "device_flag", [&](DeviceFlagAttr flag) { return argInRange(flag.getArg()); });
  if (name == kReadbackAttrName) {
    auto readback = dyn_cast<ReadbackAttr>(attr.getValue());
    if (!readback)
      return op->emitOpError("'") << name << "' must be a #stage.readback";
    return argInRange(readback.getArg());
  }
  if (name == kSampledAttrName) {
    auto sampled = dyn_cast<SampledAttr>(attr.getValue());
    if (!sampled)
      return op->emitOpError("'") << name << "' must be a #stage.sampled";
    return argInRange(sampled.getArg());
  }
  return op->emitOpError("has an unknown stage attribute '") << name << "'";
}

LogicalResult StageDialect::verifyRegionArgAttribute(Operation *op, unsigned regionIndex,
                                                     unsigned argIndex, NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name != kBufferAttrName)
    return op->emitOpError("argument ")
           << argIndex << " has an unknown stage attribute '" << name << "'";
  auto buffer = dyn_cast<BufferAttr>(attr.getValue());
  if (!buffer)
    return op->emitOpError("argument ") << argIndex << ": '" << name
                                        << "' must be a #stage.buffer";
  Region &region = op->getRegion(regionIndex);
  if (region.empty())
    return success();
  auto type = dyn_cast<MemRefType>(region.getArgument(argIndex).getType());
  // A multi-row program's activation holds `rows` of its type.
  if (type && type.hasStaticShape() &&
      bufferBytes(type) * buffer.getRows() != buffer.getByteSize())
    return op->emitOpError("argument ")
           << argIndex << " ('" << buffer.getName() << "'): byte_size " << buffer.getByteSize()
           << " differs from its type's " << bufferBytes(type) << " bytes x "
           << buffer.getRows() << " rows";
  if (buffer.getRows() > stage::programRows(op))
    return op->emitOpError("argument ")
           << argIndex << " ('" << buffer.getName() << "'): holds " << buffer.getRows()
           << " rows, more than the program's kiln.max_rows (" << stage::programRows(op)
           << ")";
  return success();
}
