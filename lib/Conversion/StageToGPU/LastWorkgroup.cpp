//===- LastWorkgroup.cpp - Which workgroup finishes a grid last -----------===//
//
// The `last_workgroup` fused form (stage.last_workgroup): after its share of
// the lead stage, each workgroup releases its writes at device scope and one
// thread adds one to the counter; the workgroup whose add makes the count the
// grid's size is the last, resets the counter and acquires everyone's writes
// before the tail. The CUDA samples' threadFenceReduction is the pattern: no
// workgroup waits on another, so nothing depends on which are resident.
//
//===----------------------------------------------------------------------===//
#include "KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"

using namespace mlir;

namespace kiln {

KernelShape shapeOf(stage::LastWorkgroupOp, const StageToGPUOptions &) { return {1, 1}; }

/// A device-scope fence over storage buffers (GLSL's memoryBarrierBuffer).
static void deviceFence(KernelBuilder &kb) {
  spirv::MemoryBarrierOp::create(kb.b, kb.loc, spirv::Scope::Device,
                                 spirv::MemorySemantics::AcquireRelease |
                                     spirv::MemorySemantics::UniformMemory);
}

void buildLastWorkgroupTail(stage::LastWorkgroupOp op, KernelBuilder &kb,
                            const std::function<void()> &tail) {
  OpBuilder &b = kb.b;
  Value counter = kb.buffer(op.getCounter());
  // Every thread's writes reach device scope before the workgroup counts.
  deviceFence(kb);
  kb.barrier();
  Value verdict = kb.workgroupBuffer(1);
  kb.ifThen(arith::CmpIOp::create(b, kb.loc, arith::CmpIPredicate::eq, kb.threadId(),
                                  kb.index(0)),
            [&] {
              Value before = memref::AtomicRMWOp::create(b, kb.loc, arith::AtomicRMWKind::addi,
                                                         kb.i32(1), counter,
                                                         ValueRange{kb.index(0)});
              // The launched grid, whatever the plan asked for.
              Value grid = arith::IndexCastOp::create(
                  b, kb.loc, b.getI32Type(), gpu::GridDimOp::create(b, kb.loc, gpu::Dimension::x));
              Value last = arith::CmpIOp::create(b, kb.loc, arith::CmpIPredicate::eq,
                                                 arith::AddIOp::create(b, kb.loc, before,
                                                                       kb.i32(1)),
                                                 grid);
              // Every other workgroup has counted: the next dispatch starts at zero.
              kb.ifThen(last, [&] { kb.store(kb.i32(0), counter, {kb.index(0)}); });
              kb.store(kb.select(last, kb.f32(1.0f), kb.f32(0.0f)), verdict, {kb.index(0)});
            });
  kb.barrier();
  Value isLast = arith::CmpFOp::create(b, kb.loc, arith::CmpFPredicate::OGT,
                                       kb.load(verdict, {kb.index(0)}), kb.f32(0.5f));
  kb.ifThen(isLast, [&] {
    // Everyone's writes, seen from here.
    deviceFence(kb);
    kb.setVirtualWorkgroup(kb.index(0), 1);
    tail();
    kb.setVirtualWorkgroup(Value(), 0);
  });
}

} // namespace kiln
