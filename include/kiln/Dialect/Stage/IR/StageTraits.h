//===- StageTraits.h - Traits of stage ops ----------------------*- C++ -*-===//
//
// C++ side of the traits StageOps.td declares (NativeOpTrait).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_STAGE_IR_STAGETRAITS_H
#define KILN_DIALECT_STAGE_IR_STAGETRAITS_H

#include "mlir/IR/OpDefinition.h"

namespace kiln::stage {

/// A stage whose work is a no-op in every call after a session's first: it
/// acts only while a state word is unset and sets it (Dory's landmark seal).
/// A dispatch of only such stages is recorded for the first call alone
/// (plan.fbs DispatchCalls::First).
template <typename ConcreteType>
class FirstCallOnly : public mlir::OpTrait::TraitBase<ConcreteType, FirstCallOnly> {};

} // namespace kiln::stage

#endif // KILN_DIALECT_STAGE_IR_STAGETRAITS_H
