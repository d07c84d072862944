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

/// A device-scope fence over storage buffers: `Release` where a workgroup
/// only publishes its writes, `AcquireRelease` (GLSL's memoryBarrierBuffer)
/// where it reads everyone's. Only the last workgroup acquires: on NVIDIA an
/// acquire at device scope invalidates the SM's L1, where the workgroups
/// still running beside it keep their activations. (The fourteenth session's
/// tails fenced every workgroup with AcquireRelease; release-only measured
/// as slow on the H200, so the tails' cost lies elsewhere: docs/fusion.md.)
static void deviceFence(KernelBuilder &kb, spirv::MemorySemantics order) {
  spirv::MemoryBarrierOp::create(kb.b, kb.loc, spirv::Scope::Device,
                                 order | spirv::MemorySemantics::UniformMemory);
}

void runInLastWorkgroup(KernelBuilder &kb, Value counter, Value word, Value expected,
                        const std::function<void()> &tail) {
  OpBuilder &b = kb.b;
  // Every thread's writes reach device scope before the workgroup counts.
  deviceFence(kb, spirv::MemorySemantics::Release);
  kb.barrier();
  Value verdict = kb.workgroupBuffer(1);
  // One op a statement: the order of ops must not depend on the order a
  // compiler evaluates call arguments in.
  Value tid = kb.threadId();
  Value zero = kb.index(0);
  Value first = arith::CmpIOp::create(b, kb.loc, arith::CmpIPredicate::eq, tid, zero);
  kb.ifThen(first, [&] {
    Value one = kb.i32(1);
    Value before = memref::AtomicRMWOp::create(b, kb.loc, arith::AtomicRMWKind::addi, one,
                                               counter, ValueRange{word});
    Value count = arith::AddIOp::create(b, kb.loc, before, one);
    Value last = arith::CmpIOp::create(b, kb.loc, arith::CmpIPredicate::eq, count, expected);
    // Every other workgroup has counted: the next dispatch starts at zero.
    kb.ifThen(last, [&] {
      Value cleared = kb.i32(0);
      kb.store(cleared, counter, {word});
    });
    Value yes = kb.f32(1.0f);
    Value no = kb.f32(0.0f);
    Value said = kb.select(last, yes, no);
    kb.store(said, verdict, {zero});
  });
  kb.barrier();
  Value half = kb.f32(0.5f);
  Value heard = kb.load(verdict, {zero});
  Value isLast = arith::CmpFOp::create(b, kb.loc, arith::CmpFPredicate::OGT, heard, half);
  kb.ifThen(isLast, [&] {
    // Everyone's writes, seen from here.
    deviceFence(kb, spirv::MemorySemantics::AcquireRelease);
    tail();
  });
}

void buildLastWorkgroupTail(stage::LastWorkgroupOp op, KernelBuilder &kb,
                            const std::function<void()> &tail) {
  OpBuilder &b = kb.b;
  // The launched grid, whatever the plan asked for.
  Value gridIndex = gpu::GridDimOp::create(b, kb.loc, gpu::Dimension::x);
  Value grid = arith::IndexCastOp::create(b, kb.loc, b.getI32Type(), gridIndex);
  Value word = kb.index(0);
  runInLastWorkgroup(kb, kb.buffer(op.getCounter()), word, grid, [&] {
    kb.setVirtualWorkgroup(kb.index(0), 1);
    tail();
    kb.setVirtualWorkgroup(Value(), 0);
  });
}

} // namespace kiln
