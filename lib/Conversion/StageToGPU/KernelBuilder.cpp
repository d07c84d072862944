//===- KernelBuilder.cpp - Small helpers to write GPU kernel bodies -------===//
#include "KernelBuilder.h"

#include "kiln/Dialect/Stage/IR/StageModule.h"
#include "kiln/Target/SPIRV/SPIRVEmitter.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace kiln {

Value KernelBuilder::index(int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}
Value KernelBuilder::i32(int32_t value) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(value));
}
Value KernelBuilder::f32(float value) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
}
Value KernelBuilder::f32Like(float value, Value like) {
  auto vector = dyn_cast<VectorType>(like.getType());
  if (!vector)
    return f32(value);
  return arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(vector, b.getF32FloatAttr(value)));
}
Value KernelBuilder::splatLike(Value scalar, Value like) {
  auto vector = dyn_cast<VectorType>(like.getType());
  if (!vector)
    return scalar;
  return vector::BroadcastOp::create(b, loc, vector, scalar);
}

Value KernelBuilder::threadId() {
  return gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
}
Value KernelBuilder::workgroupId() {
  if (virtualWorkgroupId)
    return virtualWorkgroupId;
  return gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
}
Value KernelBuilder::globalId() {
  if (virtualGlobalId)
    return virtualGlobalId;
  return add(mul(workgroupId(), index(workgroupSize)), threadId());
}

Value KernelBuilder::add(Value a, Value c) {
  return arith::AddIOp::create(b, loc, a, c);
}
Value KernelBuilder::sub(Value a, Value c) {
  return arith::SubIOp::create(b, loc, a, c);
}
Value KernelBuilder::mul(Value a, Value c) {
  return arith::MulIOp::create(b, loc, a, c);
}
Value KernelBuilder::div(Value a, Value c) {
  return arith::DivUIOp::create(b, loc, a, c);
}
Value KernelBuilder::rem(Value a, Value c) {
  return arith::RemUIOp::create(b, loc, a, c);
}
Value KernelBuilder::min(Value a, Value c) {
  return arith::MinUIOp::create(b, loc, a, c);
}
Value KernelBuilder::ult(Value a, Value c) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, a, c);
}
Value KernelBuilder::uge(Value a, Value c) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, a, c);
}

Value KernelBuilder::fadd(Value a, Value c) {
  return arith::AddFOp::create(b, loc, a, c);
}
Value KernelBuilder::fsub(Value a, Value c) {
  return arith::SubFOp::create(b, loc, a, c);
}
Value KernelBuilder::fmul(Value a, Value c) {
  return arith::MulFOp::create(b, loc, a, c);
}
Value KernelBuilder::fdiv(Value a, Value c) {
  return arith::DivFOp::create(b, loc, a, c);
}
Value KernelBuilder::fmax(Value a, Value c) {
  return arith::MaxNumFOp::create(b, loc, a, c);
}
Value KernelBuilder::exp(Value a) { return math::ExpOp::create(b, loc, a); }
Value KernelBuilder::log(Value a) { return math::LogOp::create(b, loc, a); }
Value KernelBuilder::sqrt(Value a) { return math::SqrtOp::create(b, loc, a); }
Value KernelBuilder::rsqrt(Value a) { return math::RsqrtOp::create(b, loc, a); }
Value KernelBuilder::sigmoid(Value a) {
  Value one = f32Like(1.0f, a);
  return fdiv(one, fadd(one, exp(arith::NegFOp::create(b, loc, a))));
}
Value KernelBuilder::silu(Value a) { return fmul(a, sigmoid(a)); }
Value KernelBuilder::softplus(Value a) {
  // log(1 + e^x) overflows past ~88; MODELS.md takes x itself past 20.
  Value big = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, a,
                                      f32(20.0f));
  Value safe = select(big, f32(0.0f), a);
  Value soft = log(fadd(f32(1.0f), exp(safe)));
  return select(big, a, soft);
}
Value KernelBuilder::select(Value cond, Value a, Value c) {
  return arith::SelectOp::create(b, loc, cond, a, c);
}
Value KernelBuilder::indexToF32(Value a) {
  Value asInt = arith::IndexCastUIOp::create(b, loc, b.getI32Type(), a);
  return arith::UIToFPOp::create(b, loc, b.getF32Type(), asInt);
}

SmallVector<Value> KernelBuilder::rowIndices(Value memref, ValueRange indices) const {
  SmallVector<Value> all;
  if (currentRow && rowBuffers && rowBuffers->contains(memref))
    all.push_back(currentRow);
  llvm::append_range(all, indices);
  return all;
}
Value KernelBuilder::load(Value memref, ValueRange indices) {
  return memref::LoadOp::create(b, loc, memref, rowIndices(memref, indices));
}
void KernelBuilder::store(Value value, Value memref, ValueRange indices) {
  memref::StoreOp::create(b, loc, value, memref, rowIndices(memref, indices));
}
Value KernelBuilder::paramIndex(Value params, int64_t word) {
  // A multi-row call's row r: its own token, at position + r.
  if (currentRow && word == 0) {
    Value raw = load(params, {add(index(stage::kFirstTokenWord), currentRow)});
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), raw);
  }
  Value raw = load(params, {index(word)});
  Value value = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), raw);
  return currentRow && word == 1 ? add(value, currentRow) : value;
}
Value KernelBuilder::paramF32(Value params, int64_t word) {
  Value raw = load(params, {index(word)});
  return arith::BitcastOp::create(b, loc, b.getF32Type(), raw);
}

HeldElement KernelBuilder::rowElement(Value index, int64_t size, bool mayPassEnd) {
  HeldElement e;
  e.index = index;
  e.safe = index;
  if (mayPassEnd) {
    e.inRange = ult(index, this->index(size));
    e.safe = min(index, this->index(size - 1));
  }
  return e;
}

SmallVector<HeldElement> KernelBuilder::held(int64_t size) {
  SmallVector<HeldElement> elements;
  int64_t count = ceilDiv(size, workgroupSize);
  if (size <= 0 || count > kMaxHeldPerThread)
    return elements;
  // One op a statement: the IR must not depend on the C++ compiler's argument
  // evaluation order.
  for (int64_t k = 0; k < count; ++k) {
    Value thread = threadId();
    Value offset = index(k * workgroupSize);
    elements.push_back(rowElement(add(thread, offset), size, (k + 1) * workgroupSize > size));
  }
  return elements;
}

Value KernelBuilder::loadHeld(Value memref, const HeldElement &e, ValueRange leading) {
  SmallVector<Value> indices(leading.begin(), leading.end());
  indices.push_back(e.safe);
  Value v = load(memref, indices);
  return e.inRange ? select(e.inRange, v, f32(0.0f)) : v;
}

void KernelBuilder::storeHeld(Value value, Value memref, const HeldElement &e,
                              ValueRange leading) {
  SmallVector<Value> indices(leading.begin(), leading.end());
  indices.push_back(e.index);
  if (!e.inRange) {
    store(value, memref, indices);
    return;
  }
  ifThen(e.inRange, [&] { store(value, memref, indices); });
}

SmallVector<Value> KernelBuilder::stridedTrips(
    int64_t size, int64_t unroll, ValueRange init,
    const std::function<SmallVector<Value>(const HeldElement &)> &load,
    const std::function<SmallVector<Value>(ValueRange, ArrayRef<Value>, const HeldElement &)>
        &fold) {
  const int64_t width = workgroupSize;
  const int64_t span = unroll * width;
  const int64_t fullTrips = size / span;
  // One trip: `elements` elements from `base` on; those whose slot may pass
  // the row's end (`left` elements of the row from base) are range-checked.
  // `base` is the trip's first element as a loop index, or null for the
  // trip at constant `start` after the loop.
  auto trip = [&](Value base, int64_t start, int64_t elements, int64_t left,
                  ValueRange carried) -> SmallVector<Value> {
    SmallVector<HeldElement> trip;
    SmallVector<SmallVector<Value>> loaded;
    Value thread = threadId();
    for (int64_t u = 0; u < elements; ++u) {
      Value first = base ? add(base, index(u * width)) : index(start + u * width);
      trip.push_back(rowElement(add(first, thread), size, (u + 1) * width > left));
      loaded.push_back(load(trip.back()));
    }
    SmallVector<Value> next(carried.begin(), carried.end());
    for (auto [e, values] : llvm::zip(trip, loaded))
      next = fold(next, values, e);
    return next;
  };
  SmallVector<Value> acc(init.begin(), init.end());
  if (fullTrips == 1)
    acc = trip(Value(), 0, unroll, span, acc);
  else if (fullTrips > 1 && acc.empty()) // scf.for builds its own yield then.
    forLoop(index(0), index(fullTrips * span), index(span),
            [&](Value base) { trip(base, 0, unroll, span, {}); });
  else if (fullTrips > 1)
    acc = forLoop(index(0), index(fullTrips * span), index(span), acc,
                  [&](Value base, ValueRange carried) {
                    return trip(base, 0, unroll, span, carried);
                  });
  int64_t rest = size - fullTrips * span;
  if (rest > 0)
    acc = trip(Value(), fullTrips * span, ceilDiv(rest, width), rest, acc);
  return acc;
}

Value KernelBuilder::sum(ArrayRef<Value> values) {
  SmallVector<Value> level(values.begin(), values.end());
  if (level.empty())
    return f32(0.0f);
  while (level.size() > 1) {
    SmallVector<Value> next;
    for (size_t i = 0; i + 1 < level.size(); i += 2)
      next.push_back(fadd(level[i], level[i + 1]));
    if (level.size() % 2)
      next.push_back(level.back());
    level = std::move(next);
  }
  return level.front();
}

Value KernelBuilder::dot(int64_t length, const std::function<Value(Value)> &a,
                         const std::function<Value(Value)> &c) {
  const int64_t lanes = length % 4 == 0 ? 4 : 1;
  // Products a trip computes: 16 (four per partial sum) when the length
  // allows, so a trip's loads are in flight together (a key of an attention
  // head: 8 trips of 16 loads, not 32 trips of 4). Partial sum j still
  // takes elements j, j + 4, ... in index order.
  const int64_t perTrip = lanes == 4 && length % 16 == 0 ? 16 : lanes;
  SmallVector<Value> init(lanes, f32(0.0f));
  SmallVector<Value> sums =
      forLoop(index(0), index(length), index(perTrip), init,
              [&](Value d, ValueRange s) -> SmallVector<Value> {
                SmallVector<Value> next(s.begin(), s.end());
                for (int64_t j = 0; j < perTrip; ++j) {
                  Value at = add(d, index(j));
                  next[j % lanes] = fadd(next[j % lanes], fmul(a(at), c(at)));
                }
                return next;
              });
  Value total = sums[0];
  for (int64_t j = 1; j < lanes; ++j)
    total = fadd(total, sums[j]);
  return total;
}

Value KernelBuilder::sumSteps(Value first, Value end, Value step, Value init,
                              int64_t unroll,
                              const std::function<Value(Value)> &term) {
  Value span = select(ult(first, end), sub(end, first), index(0));
  Value count = div(add(span, sub(step, index(1))), step);
  Value blocks = div(count, index(unroll));
  auto at = [&](Value i) { return add(first, mul(i, step)); };
  Value acc = forLoop(index(0), blocks, index(1), {init},
                      [&](Value k, ValueRange s) -> SmallVector<Value> {
    Value base = mul(k, index(unroll));
    Value next = s[0];
    for (int64_t j = 0; j < unroll; ++j)
      next = fadd(next, term(at(add(base, index(j)))));
    return {next};
  })[0];
  if (unroll == 1)
    return acc;
  return forLoop(mul(blocks, index(unroll)), count, index(1), {acc},
                 [&](Value i, ValueRange s) -> SmallVector<Value> {
                   return {fadd(s[0], term(at(i)))};
                 })[0];
}

SmallVector<Value> KernelBuilder::stridedLoadsFirst(
    int64_t count, int64_t unroll, ValueRange init, const std::function<Value(Value)> &value,
    const std::function<SmallVector<Value>(ValueRange, Value, Value)> &fold) {
  const int64_t width = workgroupSize;
  const int64_t blocks = count / (unroll * width);
  SmallVector<Value> acc = forLoop(
      index(0), index(blocks), index(1), init,
      [&](Value block, ValueRange carried) -> SmallVector<Value> {
        Value base = add(mul(block, index(unroll * width)), threadId());
        SmallVector<Value> ids, loaded;
        for (int64_t u = 0; u < unroll; ++u) {
          ids.push_back(add(base, index(u * width)));
          loaded.push_back(value(ids.back()));
        }
        SmallVector<Value> next(carried.begin(), carried.end());
        for (int64_t u = 0; u < unroll; ++u)
          next = fold(next, loaded[u], ids[u]);
        return next;
      });
  return forLoop(add(index(blocks * unroll * width), threadId()), index(count), index(width),
                 acc, [&](Value i, ValueRange carried) -> SmallVector<Value> {
                   return fold(carried, value(i), i);
                 });
}

void KernelBuilder::ifThen(Value cond, const std::function<void()> &then) {
  auto ifOp = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  then();
}

void KernelBuilder::ifThenElse(Value cond, const std::function<void()> &then,
                               const std::function<void()> &otherwise) {
  auto ifOp = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    then();
  }
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.elseBlock());
  otherwise();
}

SmallVector<Value> KernelBuilder::ifThenElseValues(Value cond,
                                             const std::function<SmallVector<Value>()> &then,
                                             const std::function<SmallVector<Value>()> &otherwise) {
  // Both branches are built first, in detached blocks, for the result types.
  auto branch = [&](const std::function<SmallVector<Value>()> &body, Block *block) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(block);
    SmallVector<Value> values = body();
    scf::YieldOp::create(b, loc, values);
    return values;
  };
  Block *thenBlock = new Block(), *elseBlock = new Block();
  SmallVector<Type> types;
  for (Value v : branch(then, thenBlock))
    types.push_back(v.getType());
  branch(otherwise, elseBlock);
  auto ifOp = scf::IfOp::create(b, loc, types, cond, /*addThenBlock=*/false,
                                /*addElseBlock=*/false);
  ifOp.getThenRegion().push_back(thenBlock);
  ifOp.getElseRegion().push_back(elseBlock);
  return SmallVector<Value>(ifOp.getResults());
}

void KernelBuilder::forLoop(Value lb, Value ub, Value step,
                            const std::function<void(Value)> &body) {
  auto loop = scf::ForOp::create(b, loc, lb, ub, step);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  body(loop.getInductionVar());
}

SmallVector<Value> KernelBuilder::forLoop(
    Value lb, Value ub, Value step, ValueRange init,
    const std::function<SmallVector<Value>(Value, ValueRange)> &body) {
  auto loop = scf::ForOp::create(b, loc, lb, ub, step, init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> next =
        body(loop.getInductionVar(), loop.getRegionIterArgs());
    scf::YieldOp::create(b, loc, next);
  }
  SmallVector<Value> results(loop.getResults());
  // Upstream SCF-to-SPIR-V keeps loop results in a variable that only the
  // body stores, so a loop that runs zero times yields an uninitialised value
  // (0 on lavapipe), not `init`. Select `init` then, unless the bounds are
  // constants that prove at least one trip.
  std::optional<int64_t> low = getConstantIntValue(lb);
  std::optional<int64_t> high = getConstantIntValue(ub);
  if (low && high && *low < *high)
    return results;
  Value runs = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, lb, ub);
  for (auto [result, start] : llvm::zip(results, init)) {
    // SPIR-V's OpSelect takes a condition of the values' shape.
    Value cond = runs;
    if (auto vector = dyn_cast<VectorType>(result.getType()))
      cond = vector::BroadcastOp::create(b,
          loc, VectorType::get(vector.getShape(), b.getI1Type()), runs);
    result = arith::SelectOp::create(b, loc, cond, result, start);
  }
  return results;
}

void KernelBuilder::strided(Value count,
                            const std::function<void(Value)> &body) {
  forLoop(threadId(), count, index(workgroupSize), body);
}

Value KernelBuilder::strided(Value count, Value init,
                             const std::function<Value(Value, Value)> &body) {
  return forLoop(threadId(), count, index(workgroupSize), {init},
                 [&](Value i, ValueRange acc) -> SmallVector<Value> {
                   return {body(i, acc[0])};
                 })[0];
}

void KernelBuilder::barrier() { gpu::BarrierOp::create(b, loc); }

void KernelBuilder::requireSubgroupSize(int64_t size, bool cooperativeMatrices) {
  func->setAttr(kRequiredSubgroupSizeAttr, b.getI32IntegerAttr(static_cast<int32_t>(size)));
  if (cooperativeMatrices)
    func->setAttr(kCooperativeMatrixAttr, b.getUnitAttr());
}

Value KernelBuilder::workgroupBuffer(int64_t size) {
  return workgroupBuffer(size, b.getF32Type());
}
Value KernelBuilder::workgroupBuffer(int64_t size, Type element) {
  auto space = gpu::AddressSpaceAttr::get(b.getContext(),
                                          gpu::AddressSpace::Workgroup);
  auto type = MemRefType::get({size}, element, MemRefLayoutAttrInterface(), space);
  return func.addWorkgroupAttribution(type, loc);
}

static Value combine(KernelBuilder &kb, ReduceKind kind, Value a, Value c) {
  return kind == ReduceKind::Add ? kb.fadd(a, c) : kb.fmax(a, c);
}

Value KernelBuilder::reduce(Value partial, ReduceKind kind) {
  return reduceMany(partial, kind).front();
}

Value KernelBuilder::reduceScratch(int64_t count) {
  // One buffer shared by the kernel's reductions (each ends with a barrier): a
  // wider one widens it in place. Its uses are loads and stores, which take
  // any length.
  if (!scratch) {
    scratch = workgroupBuffer(count * workgroupSize);
  } else if (count > scratchCount) {
    auto type = cast<MemRefType>(scratch.getType());
    cast<BlockArgument>(scratch).setType(MemRefType::get(
        {count * workgroupSize}, type.getElementType(), type.getLayout(),
        type.getMemorySpace()));
  }
  scratchCount = std::max(scratchCount, count);
  return scratch;
}

SmallVector<Value> KernelBuilder::reduceMany(ValueRange partials, ReduceKind kind) {
  int64_t count = partials.size();
  Value buf = reduceScratch(count);
  Value tid = threadId();
  SmallVector<Value> totals;
  if (subgroupReduce) {
    // Value i's subgroup results land in slots [i * W, i * W + subgroups); the
    // subgroup count is read at run time, never assumed.
    auto op = kind == ReduceKind::Add ? gpu::AllReduceOperation::ADD
                                      : gpu::AllReduceOperation::MAXNUMF;
    // Not marked uniform: upstream GPU-to-SPIR-V lowers only the non-uniform
    // form (GroupNonUniformFAdd / FMax with Reduce).
    SmallVector<Value> parts;
    for (Value partial : partials)
      parts.push_back(gpu::SubgroupReduceOp::create(b, loc, partial, op, /*uniform=*/false));
    Value lane = gpu::LaneIdOp::create(b, loc, /*upper_bound=*/nullptr);
    Value subgroup = gpu::SubgroupIdOp::create(b, loc, /*upper_bound=*/nullptr);
    Value subgroups = gpu::NumSubgroupsOp::create(b, loc, /*upper_bound=*/nullptr);
    Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, index(0));
    ifThen(isFirst, [&] {
      for (int64_t i = 0; i < count; ++i)
        store(parts[i], buf, {add(index(i * workgroupSize), subgroup)});
    });
    barrier();
    SmallVector<Value> inits;
    for (int64_t i = 0; i < count; ++i)
      inits.push_back(load(buf, {index(i * workgroupSize)}));
    totals = forLoop(index(1), subgroups, index(1), inits,
                     [&](Value s, ValueRange acc) -> SmallVector<Value> {
                       SmallVector<Value> next;
                       for (int64_t i = 0; i < count; ++i)
                         next.push_back(combine(*this, kind, acc[i],
                                                load(buf, {add(index(i * workgroupSize), s)})));
                       return next;
                     });
  } else {
    // A tree over workgroup memory, every value at each of log2(W) steps.
    for (int64_t i = 0; i < count; ++i)
      store(partials[i], buf, {add(index(i * workgroupSize), tid)});
    barrier();
    for (int64_t half = workgroupSize / 2; half > 0; half /= 2) {
      ifThen(ult(tid, index(half)), [&] {
        for (int64_t i = 0; i < count; ++i) {
          Value at = add(index(i * workgroupSize), tid);
          Value other = load(buf, {add(at, index(half))});
          store(combine(*this, kind, load(buf, {at}), other), buf, {at});
        }
      });
      barrier();
    }
    for (int64_t i = 0; i < count; ++i)
      totals.push_back(load(buf, {index(i * workgroupSize)}));
  }
  // The next reduction reuses the buffer: everyone must have read it.
  barrier();
  return totals;
}

Value KernelBuilder::pickByThread(ArrayRef<Value> values) {
  return pickBy(threadId(), values);
}

Value KernelBuilder::pickBy(Value id, ArrayRef<Value> values) {
  Value picked = values.front();
  for (int64_t i = 1; i < static_cast<int64_t>(values.size()); ++i)
    picked = select(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, id, index(i)),
                    values[i], picked);
  return picked;
}

Value KernelBuilder::laneId() {
  return gpu::LaneIdOp::create(b, loc, /*upper_bound=*/nullptr);
}
Value KernelBuilder::subgroupSize() {
  return gpu::SubgroupSizeOp::create(b, loc, /*upper_bound=*/nullptr);
}
Value KernelBuilder::subgroupId() {
  return gpu::SubgroupIdOp::create(b, loc, /*upper_bound=*/nullptr);
}
Value KernelBuilder::numSubgroups() {
  return gpu::NumSubgroupsOp::create(b, loc, /*upper_bound=*/nullptr);
}

SmallVector<Value> KernelBuilder::subgroupSumMany(ValueRange partials) {
  SmallVector<Value> totals;
  for (Value partial : partials)
    totals.push_back(gpu::SubgroupReduceOp::create(b, loc, partial, gpu::AllReduceOperation::ADD,
                                                   /*uniform=*/false));
  return totals;
}

Value KernelBuilder::shuffleXor(Value value, int32_t mask) {
  return spirv::GroupNonUniformShuffleXorOp::create(b, loc, spirv::Scope::Subgroup, value,
                                                    i32(mask));
}

std::pair<Value, Value> KernelBuilder::decodeHalves(Value words) {
  // GLSL.std.450 UnpackHalf2x16: one instruction per word (exact, subnormals
  // included, and no Float16 capability needed), where decoding the bits with
  // integer arithmetic costs about a dozen instructions a half.
  auto vecF32 = VectorType::get({4}, b.getF32Type());
  auto pairF32 = VectorType::get({2}, b.getF32Type());
  SmallVector<Value> low, high;
  for (int64_t w = 0; w < 4; ++w) {
    Value word = vector::ExtractOp::create(b, loc, words, w);
    Value pair = spirv::GLUnpackHalf2x16Op::create(b, loc, pairF32, word);
    low.push_back(vector::ExtractOp::create(b, loc, pair, 0));
    high.push_back(vector::ExtractOp::create(b, loc, pair, 1));
  }
  return {vector::FromElementsOp::create(b, loc, vecF32, low),
          vector::FromElementsOp::create(b, loc, vecF32, high)};
}

Value KernelBuilder::decodeCodes(Value words, int64_t byte) {
  auto vecI32 = VectorType::get({4}, b.getI32Type());
  auto vecF32 = VectorType::get({4}, b.getF32Type());
  auto splat = [&](int32_t value) {
    return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(vecI32, b.getI32IntegerAttr(value)));
  };
  // Byte `byte` to the top, an arithmetic shift back down (sign-extends),
  // one conversion. Measured on the H200 (2026-12-05, docs/performance.md):
  // faster than building the f32 from the byte under 2^23's exponent with
  // shifts, masks and a subtract (embryo-1b q8_2f 1.70 against 1.78 ms/token),
  // and again on 2026-12-06 against the tighter form below (-4.8% tokens/s),
  // which stays a switch for GPUs whose conversions cost more.
  if (options().q8DecodeByExponent) {
    // u = byte ^ 0x80 (the code + 128) as the mantissa of 2^23: the float
    // is 2^23 + 128 + code exactly, and one subtract leaves the code.
    Value shifted = byte == 0 ? words
                              : arith::ShRUIOp::create(b, loc, words, splat(int32_t(8 * byte)));
    Value low = byte == 3 ? shifted : arith::AndIOp::create(b, loc, shifted, splat(0xFF));
    Value bits = arith::XOrIOp::create(b, loc, low, splat(0x4B000080));
    Value biased = arith::BitcastOp::create(b, loc, vecF32, bits);
    Value offset = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(vecF32, b.getF32FloatAttr(8388736.0f)));
    return arith::SubFOp::create(b, loc, biased, offset);
  }
  Value up = byte == 3 ? words : arith::ShLIOp::create(b, loc, words, splat(int32_t(24 - 8 * byte)));
  Value codes = arith::ShRSIOp::create(b, loc, up, splat(24));
  return arith::SIToFPOp::create(b, loc, vecF32, codes);
}

SmallVector<Value>
KernelBuilder::packedGroupInputs(Value group, stage::MatrixFormat format, int64_t columns,
                                 const std::function<Value(Value)> &input) {
  auto vecF32 = VectorType::get({4}, b.getF32Type());
  int64_t width = format == stage::MatrixFormat::f16 ? 8 : 16;
  // Padding columns of the last group hold zero weights; the input index is
  // clamped so that they read a real (finite) activation.
  bool ragged = columns % width != 0;
  Value base = mul(group, index(width));
  auto x = [&](int64_t offset) {
    Value column = add(base, index(offset));
    if (ragged)
      column = min(column, index(columns - 1));
    return input(column);
  };
  if (format == stage::MatrixFormat::f16)
    return {vector::FromElementsOp::create(b, loc, vecF32, ValueRange{x(0), x(2), x(4), x(6)}),
            vector::FromElementsOp::create(b, loc, vecF32, ValueRange{x(1), x(3), x(5), x(7)})};
  // Byte k of the group's four words: columns k, 4 + k, 8 + k, 12 + k.
  SmallVector<Value> xs;
  for (int64_t k = 0; k < 4; ++k)
    xs.push_back(vector::FromElementsOp::create(b,
        loc, vecF32, ValueRange{x(k), x(4 + k), x(8 + k), x(12 + k)}));
  return xs;
}

SmallVector<Value>
KernelBuilder::packedGroupQuads(Value group, stage::MatrixFormat format,
                                const std::function<Value(Value)> &quad) {
  int64_t quads = format == stage::MatrixFormat::f16 ? 2 : 4;
  Value first = mul(group, index(quads));
  SmallVector<Value> loaded;
  for (int64_t q = 0; q < quads; ++q)
    loaded.push_back(quad(add(first, index(q))));
  if (format == stage::MatrixFormat::f16)
    return {vector::ShuffleOp::create(b, loc, loaded[0], loaded[1], ArrayRef<int64_t>{0, 2, 4, 6}),
            vector::ShuffleOp::create(b, loc, loaded[0], loaded[1], ArrayRef<int64_t>{1, 3, 5, 7})};
  // Vector k: column k of each quad (byte k of each word).
  auto vecF32 = VectorType::get({4}, b.getF32Type());
  SmallVector<Value> xs;
  for (int64_t k = 0; k < 4; ++k) {
    SmallVector<Value> columns;
    for (Value q : loaded)
      columns.push_back(vector::ExtractOp::create(b, loc, q, k));
    xs.push_back(vector::FromElementsOp::create(b, loc, vecF32, columns));
  }
  return xs;
}

Value KernelBuilder::packedGroupDotInputs(Value words, ValueRange inputs, Value sum,
                                          stage::MatrixFormat format) {
  // A scalar sum takes each product in turn (a multiply-add chain).
  auto accumulate = [&](Value weights, Value x) {
    if (isa<VectorType>(sum.getType()))
      return fadd(sum, fmul(weights, x));
    for (int64_t lane = 0; lane < 4; ++lane) {
      Value w = vector::ExtractOp::create(b, loc, weights, lane);
      Value v = vector::ExtractOp::create(b, loc, x, lane);
      sum = fadd(sum, fmul(w, v));
    }
    return sum;
  };
  if (format == stage::MatrixFormat::f16) {
    auto [even, odd] = decodeHalves(words);
    sum = accumulate(even, inputs[0]);
    return accumulate(odd, inputs[1]);
  }
  for (int64_t k = 0; k < 4; ++k)
    sum = accumulate(decodeCodes(words, k), inputs[k]);
  return sum;
}

} // namespace kiln
