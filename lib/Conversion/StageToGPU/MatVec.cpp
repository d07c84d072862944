//===- MatVec.cpp - The packed mat-vec kernel -----------------------------===//
//
// One workgroup per item, an item being a block of R rows (x one split-K
// chunk): its threads walk the chunk's 16-byte groups side by side (thread t
// reads groups t, t + W, ...), so a subgroup's loads are contiguous and every
// load is 16 bytes wide; each group's activations are read once and dotted
// with the same group of all R rows, whose loads are all in flight together.
// One workgroup reduction (reduceMany) sums the R partials and thread r
// writes row r (K = split_k planes, the next norm adds them). Items past the
// grid are walked by the same workgroups in turn: the grid never exceeds
// 65535 workgroups, the smallest maxComputeWorkGroupCount Vulkan allows,
// whatever the vocabulary. With a `norm`, every workgroup first reduces the
// input's mean square itself (a few KB from the cache) instead of waiting for
// an rmsnorm dispatch; with a `slerp`, the norms of Dory's residual step.
//
//===----------------------------------------------------------------------===//
#include "KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace kiln {


std::pair<int64_t, int64_t> matvecShapeFor(stage::MatrixFormat format,
                                           const StageToGPUOptions &o) {
  // A flag for both formats, else the target's measured shape, else the
  // format's default: q8_2f rows are half the bytes of f16 ones, so more rows
  // and groups per thread keep as many bytes in flight (a sweep on the H200
  // before read-only buffers were declared; docs/performance.md).
  bool q8 = format == stage::MatrixFormat::q8_2f;
  const ItemShape &target = o.matvecItemShape.of(format);
  auto pick = [](int64_t flag, int64_t fromTarget, int64_t byFormat) {
    return flag > 0 ? flag : fromTarget > 0 ? fromTarget : byFormat;
  };
  return {pick(o.matvecRowsPerItem, target.rows, q8 ? 8 : 4),
          pick(o.matvecGroupsPerThread, target.groups, q8 ? 8 : 4)};
}

int64_t rowsPerItem(stage::MatrixFormat format, int64_t rows, const StageToGPUOptions &o) {
  return std::max<int64_t>(1, std::min<int64_t>(matvecShapeFor(format, o).first, rows));
}

// The loads of every row and `unroll` groups are issued before their
// arithmetic; the activations of a group are formed once for all rows.
SmallVector<Value> stridedRowDots(KernelBuilder &kb, stage::MatrixFormat format,
                                  int64_t columns, Value weight, ArrayRef<Value> rows,
                                  Value start, Value end, int64_t step,
                                  const std::function<Value(Value)> &input,
                                  int64_t loadsInFlight) {
  SmallVector<std::pair<Value, Value>> weightRows;
  for (Value row : rows)
    weightRows.push_back({weight, row});
  return stridedRowDots(kb, format, columns, weightRows, start, end, step, input,
                        loadsInFlight);
}

SmallVector<Value> stridedRowDots(KernelBuilder &kb, stage::MatrixFormat format,
                                  int64_t columns, ArrayRef<std::pair<Value, Value>> rows,
                                  Value start, Value end, int64_t step,
                                  const std::function<Value(Value)> &input,
                                  int64_t loadsInFlight) {
  SmallVector<unsigned> inputOf(rows.size(), 0);
  return stridedRowDots(kb, format, columns, rows, start, end, kb.index(step),
                        {Activation{input}}, inputOf, loadsInFlight);
}

SmallVector<Value> stridedRowDots(KernelBuilder &kb, stage::MatrixFormat format,
                                  int64_t columns, ArrayRef<std::pair<Value, Value>> rows,
                                  Value start, Value end, Value step,
                                  ArrayRef<Activation> inputs,
                                  ArrayRef<unsigned> inputOf, int64_t loadsInFlight,
                                  ArrayRef<ColumnSums> extras,
                                  ArrayRef<int> secondInputOf) {
  OpBuilder &b = kb.b;
  int64_t count = rows.size();
  // Rows dotted with a second input too: their sums follow the rows' own.
  SmallVector<int64_t> secondRows;
  for (auto [r, second] : llvm::enumerate(secondInputOf))
    if (second >= 0)
      secondRows.push_back(r);
  int64_t dotCount = count + secondRows.size();
  int64_t extraCount = 0;
  for (const ColumnSums &e : extras)
    extraCount += e.count;
  int64_t width = format == stage::MatrixFormat::f16 ? 8 : 16;
  // Vector loads only where no group runs past the columns.
  bool wholeGroups = columns % width == 0;
  int64_t unroll = std::max<int64_t>(1, loadsInFlight / count);
  // No more groups a trip than a lane has in the row (a step read at run time
  // is a subgroup's lanes, planned at kPlannedSubgroupSize): a trip wider
  // than that never runs, and every group would go through the one-group
  // loop after it, one load of each row at a time.
  std::optional<int64_t> constantStep = getConstantIntValue(step);
  int64_t laneGroups = ceilDiv(ceilDiv(columns, width), constantStep ? *constantStep
                                                                     : kPlannedSubgroupSize);
  unroll = std::max<int64_t>(1, std::min(unroll, laneGroups));
  bool scalarSums = kb.options().matvecScalarSums.of(format);
  auto vecF32 = VectorType::get({4}, b.getF32Type());
  Value zero = scalarSums ? kb.f32(0.0f)
                          : arith::ConstantOp::create(b, kb.loc,
                                DenseElementsAttr::get(vecF32, b.getF32FloatAttr(0.0f)));
  Value span = kb.select(kb.ult(start, end), kb.sub(end, start), kb.index(0));
  // step·n: a constant where the step is a constant (a workgroup's threads
  // walk the groups), so those kernels keep their folded index arithmetic;
  // a product where it is read at run time (a subgroup's lanes).
  auto times = [&](int64_t n) {
    if (n == 1)
      return step;
    return constantStep ? kb.index(*constantStep * n) : kb.mul(step, kb.index(n));
  };
  Value roundUp = kb.add(
      span, constantStep ? kb.index(*constantStep - 1) : kb.sub(step, kb.index(1)));
  Value groupCount = kb.div(roundUp, times(1));
  auto body = [&](Value base, int64_t groups, ValueRange carried) {
    SmallVector<Value> groupIds;
    SmallVector<SmallVector<Value>> words(groups);
    for (int64_t u = 0; u < groups; ++u) {
      groupIds.push_back(kb.add(base, times(u)));
      for (auto [weight, row] : rows)
        words[u].push_back(kb.load(weight, {row, groupIds.back()}));
    }
    SmallVector<Value> sums(carried.begin(), carried.end());
    for (int64_t u = 0; u < groups; ++u) {
      SmallVector<SmallVector<Value>> xs;
      for (const Activation &input : inputs)
        xs.push_back(input.quad && wholeGroups
                         ? kb.packedGroupQuads(groupIds[u], format, input.quad)
                         : kb.packedGroupInputs(groupIds[u], format, columns, input.at));
      for (int64_t r = 0; r < count; ++r)
        sums[r] = kb.packedGroupDotInputs(words[u][r], xs[inputOf[r]], sums[r], format);
      for (auto [k, r] : llvm::enumerate(secondRows))
        sums[count + k] = kb.packedGroupDotInputs(words[u][r], xs[secondInputOf[r]],
                                                  sums[count + k], format);
      // The group's real columns only: padding reads a clamped column.
      if (extras.empty())
        continue;
      Value base = kb.mul(groupIds[u], kb.index(width));
      int64_t first = dotCount;
      for (const ColumnSums &e : extras) {
        if (e.quadTerms && wholeGroups) {
          Value firstQuad = kb.mul(groupIds[u], kb.index(width / 4));
          for (int64_t q = 0; q < width / 4; ++q) {
            SmallVector<Value> values = e.quadTerms(kb.add(firstQuad, kb.index(q)));
            assert(int64_t(values.size()) == e.count && "ColumnSums::count disagrees");
            for (auto [k, term] : llvm::enumerate(values))
              sums[first + k] = kb.fadd(sums[first + k], term);
          }
          first += e.count;
          continue;
        }
        for (int64_t j = 0; j < width; ++j) {
          Value column = kb.add(base, kb.index(j));
          SmallVector<Value> values =
              e.terms(columns % width ? kb.min(column, kb.index(columns - 1)) : column);
          assert(int64_t(values.size()) == e.count && "ColumnSums::count disagrees");
          for (auto [k, term] : llvm::enumerate(values)) {
            if (columns % width)
              term = kb.select(kb.ult(column, kb.index(columns)), term, kb.f32(0.0f));
            sums[first + k] = kb.fadd(sums[first + k], term);
          }
        }
        first += e.count;
      }
    }
    return sums;
  };
  SmallVector<Value> init(dotCount, zero);
  init.append(extraCount, kb.f32(0.0f));
  Value blocks = kb.div(groupCount, kb.index(unroll));
  SmallVector<Value> acc = kb.forLoop(
      kb.index(0), blocks, kb.index(1), init,
      [&](Value k, ValueRange carried) -> SmallVector<Value> {
        return body(kb.add(start, kb.mul(k, times(unroll))), unroll, carried);
      });
  if (unroll > 1)
    acc = kb.forLoop(kb.mul(blocks, kb.index(unroll)), groupCount, kb.index(1), acc,
                     [&](Value r, ValueRange carried) -> SmallVector<Value> {
                       return body(kb.add(start, kb.mul(r, times(1))), 1, carried);
                     });
  if (scalarSums)
    return acc;
  SmallVector<Value> dots;
  for (Value v : ArrayRef<Value>(acc).take_front(dotCount))
    dots.push_back(vector::ReductionOp::create(b, kb.loc, vector::CombiningKind::ADD, v));
  llvm::append_range(dots, ArrayRef<Value>(acc).drop_front(dotCount));
  return dots;
}

Value routedExpert(KernelBuilder &kb, Value word, int64_t experts) {
  return kb.min(arith::IndexCastUIOp::create(kb.b, kb.loc, kb.b.getIndexType(), word),
                kb.index(experts - 1));
}

bool subgroupItems(const StageToGPUOptions &o) {
  return o.matvecSubgroupItems && o.subgroupReduce;
}

/// Workgroups of a mat-vec's grid for `items` items.
static int64_t gridFor(int64_t items, int64_t workgroupSize, const StageToGPUOptions &o) {
  if (subgroupItems(o))
    items = ceilDiv(items, std::max<int64_t>(1, workgroupSize / kPlannedSubgroupSize));
  if (o.matvecGridLimit > 0)
    items = std::min(items, o.matvecGridLimit);
  return std::min(items, kMaxGridWorkgroups);
}

KernelShape shapeOf(stage::MatVecOp op, const StageToGPUOptions &o) {
  int64_t items = ceilDiv(op.getRows(), rowsPerItem(op.getFormat(), op.getRows(), o)) *
                  op.getSplitK();
  if (subgroupItems(o)) {
    int64_t size = std::min<int64_t>(kSubgroupItemsWorkgroupSize, o.reduceWorkgroupSize);
    return {size, gridFor(items, size, o)};
  }
  int64_t groups = memrefSize(op.getWeight(), 1);
  int64_t perChunk = ceilDiv(groups, op.getSplitK());
  // About groupsPerThread groups a thread and row, within [32, reduce size]: every thread busy on a row, few enough partials that the closing
  // reduction stays cheap (measured on the H200, docs/performance.md).
  const bool plainInput =
      !op.getNorm() && !op.getUp() && !op.getColScale() && !op.getSlerpUpdate();
  int64_t groupsPerThread = plainInput && o.matvecPlainGroupsPerThread > 0
                                ? o.matvecPlainGroupsPerThread
                                : matvecShapeFor(op.getFormat(), o).second;
  int64_t size = std::max<int64_t>(32, llvm::PowerOf2Ceil(ceilDiv(perChunk, groupsPerThread)));
  size = std::min<int64_t>(size, o.reduceWorkgroupSize);
  return {size, gridFor(items, size, o)};
}

namespace {
/// One mat-vec's per-item body, with what it loads once per kernel.
class MatVecRows {
public:
  /// `earlier`: mat-vecs of the same kernel built before, whose norm this one
  /// reuses when it normalises the same input the same way.
  MatVecRows(stage::MatVecOp op, KernelBuilder &kb, int64_t rowsPerItem,
             ArrayRef<MatVecRows> earlier = {})
      : op(op), kb(kb), rowsPerItem(rowsPerItem), bySubgroup(subgroupItems(kb.options())) {
    rows = op.getRows();
    splitK = op.getSplitK();
    groups = memrefSize(op.getWeight(), 1);
    perChunk = ceilDiv(groups, splitK);
    weight = kb.buffer(op.getWeight());
    input = kb.buffer(op.getInput());
    up = op.getUp() ? kb.buffer(op.getUp()) : Value();
    out = kb.buffer(op.getOut());
    colScale = op.getColScale() ? kb.buffer(op.getColScale()) : Value();
    inputView = kb.vectorView(op.getInput());
    normView = op.getNorm() ? kb.vectorView(op.getNorm()) : Value();
    upView = op.getUp() ? kb.vectorView(op.getUp()) : Value();
    colScaleView = op.getColScale() ? kb.vectorView(op.getColScale()) : Value();
    updateView = op.getSlerpUpdate() ? kb.vectorView(op.getSlerpUpdate()) : Value();
    alphaView = op.getSlerpAlpha() ? kb.vectorView(op.getSlerpAlpha()) : Value();
    if (op.getNorm()) {
      norm = kb.buffer(op.getNorm());
      // After the dots: 1/rms scales the row totals, its mean square summed
      // in the same pass (a chunk of a split-K row sees only its columns).
      normAfter = kb.options().matvecNormAfterDots.of(op.getFormat()) && splitK == 1;
      if (!normAfter) {
        for (const MatVecRows &m : earlier)
          if (sameNorm(m))
            invRms = m.invRms;
        if (!invRms)
          invRms = inverseRms();
      }
    }
    if (op.getSlerpUpdate()) {
      update = kb.buffer(op.getSlerpUpdate());
      alpha = kb.buffer(op.getSlerpAlpha());
      // After the dots: each row dotted with u and w apart, the five sums
      // beside them (a whole item's columns: split_k 1; a workgroup's
      // threads, which all store the new h; nothing nonlinear after it).
      slerpAfter = kb.options().matvecSlerpAfterDots && splitK == 1 && !bySubgroup && !norm &&
                   !up;
    }
    if (op.getSlerpUpdate() && !slerpAfter) {
      for (const MatVecRows &m : earlier)
        if (m.update && sameSlerp(m)) {
          hiddenScale = m.hiddenScale;
          updateScale = m.updateScale;
        }
      if (!hiddenScale)
        slerpScales();
      if (op.getHiddenOut()) {
        Value workgroup = kb.workgroupId();
        storeHidden(kb.buffer(op.getHiddenOut()), kb.ult(workgroup, kb.index(1)));
      }
    }
    // A routed expert (routedExpert): its rows and scales start at e·R, e·C.
    if (op.getExpert()) {
      Value word = kb.load(kb.buffer(op.getExpert()), {kb.index(0)});
      Value e = routedExpert(kb, word, op.getNumExperts());
      rowBase = kb.mul(e, kb.index(rows));
      colBase = kb.mul(e, kb.index(op.getColumns()));
    }
  }

  int64_t items() const { return ceilDiv(rows, rowsPerItem) * splitK; }

  /// An item's rows: (row block, chunk) and the weight rows it reads.
  struct Item {
    Value chunk, first, end, firstRow;
    SmallVector<std::pair<Value, Value>> weightRows;
  };

  Item itemAt(Value item) {
    Item it;
    Value block = kb.div(item, kb.index(splitK));
    it.chunk = kb.rem(item, kb.index(splitK));
    it.first = kb.mul(it.chunk, kb.index(perChunk));
    it.end = kb.min(kb.add(it.first, kb.index(perChunk)), kb.index(groups));
    it.firstRow = kb.mul(block, kb.index(rowsPerItem));
    // Rows past the matrix (a ragged last block) read the last row and are
    // not stored.
    for (int64_t r = 0; r < rowsPerItem; ++r) {
      Value row = kb.min(kb.add(it.firstRow, kb.index(r)), kb.index(rows - 1));
      it.weightRows.push_back({weight, rowBase ? kb.add(rowBase, row) : row});
    }
    return it;
  }

  /// 1 / sqrt(mean(input²) + eps), reduced by the whole workgroup (every
  /// thread must reach it).
  Value inverseRms() {
    int64_t columns = op.getColumns();
    Value total;
    if (SmallVector<HeldElement> held = kb.held(columns); !held.empty()) {
      SmallVector<Value> squares;
      for (const HeldElement &e : held) {
        Value v = kb.loadHeld(input, e);
        squares.push_back(kb.fmul(v, v));
      }
      total = kb.sum(squares);
    } else {
      total = kb.strided(kb.index(columns), kb.f32(0.0f), [&](Value i, Value acc) {
        Value v = kb.load(input, {i});
        return kb.fadd(acc, kb.fmul(v, v));
      });
    }
    return inverseRmsOf(kb.reduce(total, ReduceKind::Add));
  }

  /// 1 / sqrt(sumOfSquares / columns + eps): the norm's factor from the
  /// input's sum of squares over every column.
  Value inverseRmsOf(Value sumOfSquares) {
    Value mean = kb.fdiv(sumOfSquares, kb.f32(float(op.getColumns())));
    return kb.rsqrt(kb.fadd(mean, kb.f32(op.getNormEps()->convertToFloat())));
  }

  /// The slerp's factors, reduced by the whole workgroup from one pass over
  /// h, o and alpha (every thread must reach it). With u = (1 − α) ⊙ h and
  /// w = α ⊙ o, the new h is unit(y), y = u / |h| + w / |o| (unit(x) =
  /// x / sqrt(|x|² + eps)), and |y|² = Σu² / |h|² + 2 Σuw / (|h||o|) + Σw² / |o|²:
  /// so h_new = hiddenScale · u + updateScale · w.
  /// The slerp's five products at one column (slerpScales' order).
  SmallVector<Value> slerpTerms(ArrayRef<Value> hoa) {
    Value h = hoa[0], o = hoa[1], a = hoa[2];
    Value u = kb.fsub(h, kb.fmul(a, h));
    Value w = kb.fmul(a, o);
    // Braced lists evaluate in order: the IR does not depend on the compiler.
    return {kb.fmul(h, h), kb.fmul(o, o), kb.fmul(u, u), kb.fmul(u, w), kb.fmul(w, w)};
  }

  /// The five products at column `at`, or with `quad` each summed over
  /// columns 4·at .. 4·at + 3 (the vector views).
  SmallVector<Value> slerpTermsAt(Value at, bool quad = false) {
    SmallVector<Value> terms = slerpTerms(slerpLoads(at, quad));
    if (quad)
      for (Value &t : terms)
        t = vector::ReductionOp::create(kb.b, kb.loc, vector::CombiningKind::ADD, t);
    return terms;
  }

  /// h, o and alpha at column `at` (or its quad), loaded in that order.
  SmallVector<Value> slerpLoads(Value at, bool quad) {
    // Braced lists evaluate in order: the IR does not depend on the compiler.
    return {loadActivation(input, inputView, at, quad),
            loadActivation(update, updateView, at, quad),
            loadActivation(alpha, alphaView, at, quad)};
  }

  /// u = (1 − α) ⊙ h, or w = α ⊙ o, at `column`, times the column scale:
  /// what a slerp after the dots dots each row with.
  Value slerpPartAt(Value column, bool updatePart) {
    return slerpPart(column, updatePart, /*quad=*/false);
  }

  /// slerpPartAt at columns 4q .. 4q + 3 (the vector views).
  Value slerpPartQuad(Value quad, bool updatePart) {
    return slerpPart(quad, updatePart, /*quad=*/true);
  }

  Value slerpPart(Value at, bool updatePart, bool quad) {
    Value a = loadActivation(alpha, alphaView, at, quad);
    Value x;
    if (updatePart) {
      x = kb.fmul(a, loadActivation(update, updateView, at, quad));
    } else {
      Value h = loadActivation(input, inputView, at, quad);
      x = kb.fsub(h, kb.fmul(a, h));
    }
    if (colScale)
      x = kb.fmul(x, loadActivation(colScale, colScaleView, at, quad, colBase));
    return x;
  }

  /// A buffer's value at column `at`, or with `quad` its columns 4·at ..
  /// 4·at + 3 through the vector view; `base` columns further on where set.
  Value loadActivation(Value buffer, Value view, Value at, bool quad, Value base = Value()) {
    if (quad)
      return kb.load(view, {base ? kb.add(kb.div(base, kb.index(4)), at) : at});
    return kb.load(buffer, {base ? kb.add(base, at) : at});
  }

  void slerpScales() {
    int64_t columns = op.getColumns();
    SmallVector<Value> partial;
    if (SmallVector<HeldElement> held = kb.held(columns); !held.empty()) {
      SmallVector<SmallVector<Value>> bySum(5);
      for (const HeldElement &e : held)
        for (auto [i, t] : llvm::enumerate(slerpTerms(slerpInputs(e))))
          bySum[i].push_back(t);
      for (ArrayRef<Value> values : bySum)
        partial.push_back(kb.sum(values));
    } else {
      // A trip's loads in flight together: one load at a time, a 64-thread
      // workgroup's 32 trips over 2,048 columns cost more than the slerp's
      // own dispatch (docs/performance.md, sixteenth session).
      SmallVector<Value> init(5, kb.f32(0.0f));
      partial = kb.stridedTrips(
          columns, kMaxHeldPerThread, init,
          [&](const HeldElement &e) { return slerpInputs(e); },
          [&](ValueRange acc, ArrayRef<Value> hoa, const HeldElement &) {
            SmallVector<Value> next;
            for (auto [sum, t] : llvm::zip(acc, slerpTerms(hoa)))
              next.push_back(kb.fadd(sum, t));
            return next;
          });
    }
    slerpScalesOf(kb.reduceMany(partial));
  }

  /// hiddenScale and updateScale from the five sums (Σh², Σo², Σu², Σuw, Σw²).
  void slerpScalesOf(ArrayRef<Value> sums) {
    Value eps = kb.f32(op.getSlerpEps()->convertToFloat());
    Value invH = kb.rsqrt(kb.fadd(sums[0], eps));
    Value invO = kb.rsqrt(kb.fadd(sums[1], eps));
    Value uu = kb.fmul(kb.fmul(invH, invH), sums[2]);
    Value two = kb.f32(2.0f);
    Value cross = kb.fmul(kb.fmul(two, kb.fmul(invH, invO)), sums[3]);
    Value ww = kb.fmul(kb.fmul(invO, invO), sums[4]);
    // |y|² is a sum of squares; rounding must not take it below zero.
    Value zero = kb.f32(0.0f);
    Value yy = kb.fmax(kb.fadd(kb.fadd(uu, cross), ww), zero);
    Value inv = kb.rsqrt(kb.fadd(yy, eps));
    hiddenScale = kb.fmul(inv, invH);
    updateScale = kb.fmul(inv, invO);
  }

  /// h, o and alpha at a held element (0 past the row).
  SmallVector<Value> slerpInputs(const HeldElement &e) {
    return {kb.loadHeld(input, e), kb.loadHeld(update, e), kb.loadHeld(alpha, e)};
  }

  /// The slerp's new hidden state from h, o and alpha at one column.
  Value slerpOf(ArrayRef<Value> hoa) {
    Value h = hoa[0], o = hoa[1], a = hoa[2];
    Value hs = kb.fmul(h, kb.splatLike(hiddenScale, h));
    Value os = kb.fmul(o, kb.splatLike(updateScale, o));
    return kb.fadd(hs, kb.fmul(a, kb.fsub(os, hs)));
  }

  /// Where `isFirst` holds (once in the grid: the workgroup of item 0), the
  /// workgroup writes the new hidden state; nothing in this kernel reads it.
  /// The whole dispatch waits for this workgroup: its loads go a trip at a
  /// time, as in slerpScales.
  void storeHidden(Value next, Value isFirst) {
    kb.ifThen(isFirst, [&] {
      kb.stridedTrips(op.getColumns(), kMaxHeldPerThread, {},
                      [&](const HeldElement &e) { return slerpInputs(e); },
                      [&](ValueRange, ArrayRef<Value> hoa, const HeldElement &e) {
                        kb.storeHeld(slerpOf(hoa), next, e);
                        return SmallVector<Value>{};
                      });
    });
  }

  /// The activation at `column` this mat-vec multiplies.
  Value inputAt(Value column) {
    return staged ? kb.load(staged, {column}) : activation(column, /*quad=*/false);
  }

  /// With StageToGPUOptions::matvecStageInput, forms the activation of every
  /// column once into workgroup memory (its loads a trip at a time, as in
  /// slerpScales) behind one barrier; inputAt and inputQuad then read it
  /// there for every item. `earlier` mat-vecs of the kernel that share this
  /// one's input lend theirs. Every thread must reach it.
  void stageInput(ArrayRef<MatVecRows> earlier = {}) {
    if (!kb.options().matvecStageInput || slerpAfter)
      return;
    for (const MatVecRows &m : earlier)
      if (m.staged && sharesInput(m)) {
        staged = m.staged;
        return;
      }
    const int64_t columns = op.getColumns();
    // At most half the workgroup memory (16 KB where the target gives none):
    // the reductions and attention-sized kernels keep the rest.
    const int64_t budget = kb.options().maxWorkgroupMemoryBytes > 0
                               ? kb.options().maxWorkgroupMemoryBytes / 2
                               : 16384;
    const int64_t padded = ceilDiv(columns, 4) * 4;
    if (4 * padded > budget)
      return;
    Value buffer = kb.workgroupBuffer(padded);
    kb.stridedTrips(columns, kMaxHeldPerThread, {},
                    [&](const HeldElement &e) {
                      return SmallVector<Value>{activation(e.safe, /*quad=*/false)};
                    },
                    [&](ValueRange, ArrayRef<Value> x, const HeldElement &e) {
                      kb.storeHeld(x[0], buffer, e);
                      return SmallVector<Value>{};
                    });
    kb.barrier();
    staged = buffer;
  }

  /// Whether inputQuad (or slerpPartQuad) can form the activations: every
  /// buffer they read has a vector view.
  bool hasQuads() const {
    return inputView && (!norm || normView) && (!up || upView) &&
           (!colScale || colScaleView) && (!update || (updateView && alphaView));
  }

  /// inputAt's activations at columns 4q .. 4q + 3, from vector loads (the
  /// same operations in the same order, lane by lane), or from the staged
  /// input's four columns.
  Value inputQuad(Value quad) {
    if (!staged)
      return activation(quad, /*quad=*/true);
    Value base = kb.mul(quad, kb.index(4));
    SmallVector<Value> lanes;
    for (int64_t k = 0; k < 4; ++k) {
      Value column = kb.add(base, kb.index(k));
      lanes.push_back(kb.load(staged, {column}));
    }
    return vector::FromElementsOp::create(kb.b, kb.loc, VectorType::get({4}, kb.b.getF32Type()),
                                          lanes);
  }

  /// The activation at `at`: a column (f32 loads), or with `quad` columns
  /// 4·at .. 4·at + 3 (the vector views, hasQuads).
  Value activation(Value at, bool quad) {
    auto load = [&](Value buffer, Value view, Value base = Value()) {
      return loadActivation(buffer, view, at, quad, base);
    };
    Value x = update ? slerpOf(slerpLoads(at, quad)) : load(input, inputView);
    if (norm) {
      Value w = load(norm, normView);
      if (op.getNormZeroCentered())
        w = kb.fadd(w, kb.f32Like(1.0f, w));
      x = kb.fmul(normAfter ? x : kb.fmul(x, kb.splatLike(invRms, x)), w);
    }
    if (up)
      x = kb.fmul(kb.silu(x), load(up, upView));
    if (colScale)
      x = kb.fmul(x, load(colScale, colScaleView, colBase));
    return x;
  }

  /// This thread's partials of the item's rows of one mat-vec, or of several
  /// that walk the same items (sameItems): one pass over the columns, every
  /// row's loads in flight together, each mat-vec's activations formed once
  /// a group (once for all of them where they share their input).
  ///
  /// A mat-vec normed after its dots adds its input's sum of squares after
  /// the row partials (once for all that share the norm); one that takes a
  /// slerp after its dots dots each row with u and w apart (their partials
  /// after the rows') and adds the slerp's five sums. totals() takes them back.
  static SmallVector<Value> partials(MutableArrayRef<MatVecRows> matvecs,
                                     ArrayRef<Item> items) {
    SmallVector<Activation> inputs;
    SmallVector<ColumnSums> extras;
    SmallVector<unsigned> inputOfMatvec, inputOfRow;
    SmallVector<int> secondOfMatvec, secondOfRow;
    SmallVector<std::pair<Value, Value>> weightRows;
    for (auto [i, m] : llvm::enumerate(matvecs)) {
      KernelBuilder *kb = &m.kb;
      // The sums of an earlier mat-vec that `same` accepts, else `sums`
      // added behind those taken so far.
      auto sumsFor = [&](const std::function<bool(const MatVecRows &)> &same,
                          ColumnSums sums) {
        for (size_t j = 0; j < i; ++j)
          if (same(matvecs[j])) {
            m.sumsIndex = matvecs[j].sumsIndex;
            return;
          }
        m.sumsIndex = 0;
        for (const ColumnSums &e : extras)
          m.sumsIndex += e.count;
        extras.push_back(std::move(sums));
      };
      m.sumsIndex = -1;
      if (m.normAfter) {
        Value in = m.input, view = m.inputView;
        ColumnSums squares{1, [kb, in](Value column) -> SmallVector<Value> {
                             Value x = kb->load(in, {column});
                             return {kb->fmul(x, x)};
                           }};
        if (view)
          squares.quadTerms = [kb, view](Value quad) -> SmallVector<Value> {
            Value x = kb->load(view, {quad});
            return {vector::ReductionOp::create(kb->b, kb->loc, vector::CombiningKind::ADD,
                                                kb->fmul(x, x))};
          };
        sumsFor([&](const MatVecRows &o) { return o.normAfter && o.sameNorm(m); },
                std::move(squares));
      }
      if (m.slerpAfter) {
        MatVecRows *self = &m;
        ColumnSums terms{5, [self](Value column) { return self->slerpTermsAt(column); }};
        if (m.hasQuads())
          terms.quadTerms = [self](Value quad) { return self->slerpTermsAt(quad, /*quad=*/true); };
        sumsFor([&](const MatVecRows &o) { return o.slerpAfter && o.sameSlerp(m); },
                std::move(terms));
      }
      unsigned input = inputs.size();
      int second = -1;
      for (size_t j = 0; j < i && input == inputs.size(); ++j)
        if (matvecs[j].sharesInput(m)) {
          input = inputOfMatvec[j];
          second = secondOfMatvec[j];
        }
      if (input == inputs.size()) {
        MatVecRows *self = &m;
        if (m.slerpAfter) {
          for (bool updatePart : {false, true}) {
            Activation part{[self, updatePart](Value column) {
              return self->slerpPartAt(column, updatePart);
            }};
            if (m.hasQuads())
              part.quad = [self, updatePart](Value quad) {
                return self->slerpPartQuad(quad, updatePart);
              };
            if (updatePart)
              second = inputs.size();
            inputs.push_back(std::move(part));
          }
        } else {
          Activation activation{[self](Value column) { return self->inputAt(column); }};
          if (m.hasQuads())
            activation.quad = [self](Value quad) { return self->inputQuad(quad); };
          inputs.push_back(std::move(activation));
        }
      }
      inputOfMatvec.push_back(input);
      secondOfMatvec.push_back(second);
      for (const auto &row : items[i].weightRows) {
        weightRows.push_back(row);
        inputOfRow.push_back(input);
        secondOfRow.push_back(second);
      }
    }
    bool anySecond = llvm::any_of(secondOfRow, [](int k) { return k >= 0; });
    const MatVecRows &first = matvecs.front();
    Value start = first.kb.add(items.front().first, first.member());
    Value step = first.members();
    return stridedRowDots(first.kb, first.op.getFormat(), first.op.getColumns(), weightRows,
                          start, items.front().end, step, inputs, inputOfRow,
                          first.loadsInFlight(), extras,
                          anySecond ? ArrayRef<int>(secondOfRow) : ArrayRef<int>());
  }

  /// Splits the item's summed partials (partials()' order) into the rows'
  /// totals, one list a mat-vec: a mat-vec normed after its dots takes its
  /// 1/rms from the sums of squares behind them; one that takes a slerp after
  /// its dots its two factors from the five sums, each row total being
  /// hiddenScale · (row · u) + updateScale · (row · w).
  static SmallVector<SmallVector<Value>> totals(MutableArrayRef<MatVecRows> matvecs,
                                                ArrayRef<Value> sums) {
    SmallVector<SmallVector<Value>> out;
    size_t rowCount = 0, secondCount = 0;
    for (MatVecRows &m : matvecs) {
      out.emplace_back(sums.slice(rowCount, m.rowsPerItem));
      rowCount += m.rowsPerItem;
      if (m.slerpAfter)
        secondCount += m.rowsPerItem;
    }
    size_t extrasAt = rowCount + secondCount;
    // Mat-vecs that share a norm share its sum of squares and its factor.
    DenseMap<int64_t, Value> factorOf;
    for (MatVecRows &m : matvecs)
      if (m.normAfter) {
        Value &factor = factorOf[m.sumsIndex];
        if (!factor)
          factor = m.inverseRmsOf(sums[extrasAt + m.sumsIndex]);
        m.invRms = factor;
      }
    DenseMap<int64_t, std::pair<Value, Value>> scalesOf;
    size_t secondAt = rowCount;
    for (auto [i, m] : llvm::enumerate(matvecs)) {
      if (!m.slerpAfter)
        continue;
      auto &scales = scalesOf[m.sumsIndex];
      if (!scales.first) {
        m.slerpScalesOf(sums.slice(extrasAt + m.sumsIndex, 5));
        scales = {m.hiddenScale, m.updateScale};
      }
      m.hiddenScale = scales.first;
      m.updateScale = scales.second;
      for (int64_t r = 0; r < m.rowsPerItem; ++r) {
        Value fromHidden = m.kb.fmul(m.hiddenScale, out[i][r]);
        Value fromUpdate = m.kb.fmul(m.updateScale, sums[secondAt + r]);
        out[i][r] = m.kb.fadd(fromHidden, fromUpdate);
      }
      secondAt += m.rowsPerItem;
    }
    return out;
  }

  /// After the item's totals: the first item's threads write the slerp's new
  /// hidden state (a slerp after the dots knows its factors only now).
  void afterTotals(Value item) {
    if (!slerpAfter || !op.getHiddenOut())
      return;
    Value next = kb.buffer(op.getHiddenOut());
    storeHidden(next, kb.ult(item, kb.index(1)));
  }

  int64_t loadsInFlight() const {
    int64_t set = kb.options().matvecLoadsInFlight;
    return set > 0 ? set : kMatVecLoadsInFlight;
  }

  /// The thread's place among those sharing an item: its lane where a
  /// subgroup computes an item, else its thread id.
  Value member() const { return bySubgroup ? kb.laneId() : kb.threadId(); }
  /// How many threads share an item: a subgroup's lanes, or all of a
  /// workgroup smaller than one subgroup (a partial subgroup: a 32-thread
  /// workgroup on 64-lane hardware has 32 lanes, not SubgroupSize).
  Value members() const {
    if (!bySubgroup)
      return kb.index(kb.getWorkgroupSize());
    // One op a statement: the IR must not depend on the C++ compiler's
    // argument evaluation order.
    Value size = kb.subgroupSize();
    Value threads = kb.index(kb.getWorkgroupSize());
    return kb.min(size, threads);
  }

  /// Adds the item's partials over the threads that share it.
  SmallVector<Value> sumOverItem(ValueRange partials) const {
    return bySubgroup ? kb.subgroupSumMany(partials) : kb.reduceMany(partials);
  }

  /// The first item this thread's workgroup (or subgroup) computes and the
  /// stride to its next, for a grid of `workgroups`.
  std::pair<Value, Value> itemWalk(int64_t workgroups) const {
    if (!bySubgroup)
      return {kb.workgroupId(), kb.index(workgroups)};
    Value subgroups = kb.numSubgroups();
    Value base = kb.mul(kb.workgroupId(), subgroups);
    Value first = kb.add(base, kb.subgroupId());
    Value grid = kb.index(workgroups);
    return {first, kb.mul(grid, subgroups)};
  }

  /// Runs `body(r)` for each row r of an item (an index into its totals)
  /// this thread stores: its thread id where a workgroup computes the item;
  /// its lane, lane + S, ... where a subgroup of S lanes does (an item may
  /// hold more rows than the subgroup has lanes).
  void forEachOwnedRow(const std::function<void(Value r)> &body) {
    if (!bySubgroup) {
      body(kb.threadId());
      return;
    }
    Value lanes = members();
    Value lane = kb.laneId();
    Value end = kb.index(rowsPerItem);
    kb.forLoop(lane, end, lanes, [&](Value r) { body(r); });
  }

  /// Stores total r, the block's row r, where that row exists. Returns the
  /// row (meaningful where ownsRow(r, row) holds).
  Value storeRow(const Item &it, ArrayRef<Value> totals, Value r) {
    Value y = kb.pickBy(r, totals);
    Value row = kb.add(it.firstRow, r);
    kb.ifThen(ownsRow(r, row), [&] {
      Value v = normAfter ? kb.fmul(y, invRms) : y;
      Value wrow = rowBase ? kb.add(rowBase, row) : row;
      if (op.getRowScale())
        v = kb.fmul(v, kb.load(kb.buffer(op.getRowScale()), {wrow}));
      if (op.getFold())
        v = kb.fmul(v, kb.load(kb.buffer(op.getFold()), {row}));
      SmallVector<Value> at;
      if (splitK > 1)
        at = {it.chunk, row};
      else
        at = {row};
      if (op.getAccumulate())
        v = kb.fadd(v, kb.load(out, at));
      kb.store(v, out, at);
    });
    return row;
  }

  /// The item's totals, one a row, in every thread that shares the item.
  SmallVector<Value> totalsOf(const Item &it) {
    MutableArrayRef<MatVecRows> self(*this);
    return totals(self, sumOverItem(partials(self, it))).front();
  }

  /// Computes item (row block, chunk) with the threads that share it; each
  /// stores the rows it owns (forEachOwnedRow).
  void emitItem(Value item) {
    Item it = itemAt(item);
    SmallVector<Value> totals = totalsOf(it);
    afterTotals(item);
    forEachOwnedRow([&](Value r) { storeRow(it, totals, r); });
  }

  /// Whether `other` walks the same items (rows, chunks, packed columns), so
  /// that one pass over the columns can serve both.
  bool sameItems(const MatVecRows &other) const {
    return rows == other.rows && splitK == other.splitK && groups == other.groups &&
           op.getFormat() == other.op.getFormat() && op.getColumns() == other.op.getColumns();
  }

  /// Whether `other` normalises the same input with the same norm.
  bool sameNorm(const MatVecRows &other) const {
    return input == other.input && norm == other.norm &&
           (!norm || (op.getNormEps() == other.op.getNormEps() &&
                      op.getNormZeroCentered() == other.op.getNormZeroCentered()));
  }

  /// Whether `other` takes the same slerp of the same hidden state.
  bool sameSlerp(const MatVecRows &other) const {
    return input == other.input && update == other.update && alpha == other.alpha &&
           (!update || op.getSlerpEps() == other.op.getSlerpEps());
  }

  /// Whether `other` multiplies the same activations over the same items.
  bool sharesInput(const MatVecRows &other) const {
    return sameItems(other) && sameNorm(other) && sameSlerp(other) && up == other.up &&
           colScale == other.colScale && colBase == other.colBase;
  }

  /// Whether this thread stored `row`, its item's row r (row = the block's
  /// first row + r).
  Value ownsRow(Value r, Value row) {
    Value mine = kb.ult(r, kb.index(rowsPerItem));
    return arith::AndIOp::create(kb.b, kb.loc, mine, kb.ult(row, kb.index(rows)));
  }

private:
  // Op accessors are not const-qualified; the handle is a value.
  mutable stage::MatVecOp op;
  KernelBuilder &kb;
  int64_t rowsPerItem;
  bool bySubgroup;
  /// Normed after the dots (StageToGPUOptions::matvecNormAfterDots): invRms
  /// is then set per item by totals(), from the sum of squares at
  /// sumsIndex behind the row partials.
  bool normAfter = false;
  /// A slerp taken after the dots (StageToGPUOptions::matvecSlerpAfterDots):
  /// no reduction before the weight loads; totals() forms the row totals and
  /// the factors from the five sums at sumsIndex.
  bool slerpAfter = false;
  int64_t sumsIndex = -1;
  int64_t rows, splitK, groups, perChunk;
  Value weight, input, up, out, colScale, rowBase, colBase;
  Value norm, invRms;
  /// vector<4xf32> views of the activation buffers (KernelBuilder::vectorView).
  Value inputView, normView, upView, colScaleView, updateView, alphaView;
  /// A slerp's operands and factors (slerpScales).
  Value update, alpha, hiddenScale, updateScale;
  /// The activation of every column in workgroup memory (stageInput).
  Value staged;
};
} // namespace

void buildKernel(stage::MatVecOp op, KernelBuilder &kb) {
  MatVecRows rows(op, kb, rowsPerItem(op.getFormat(), op.getRows(), kb.options()));
  rows.stageInput();
  int64_t workgroups =
      kb.gridWorkgroups(gridFor(rows.items(), kb.getWorkgroupSize(), kb.options()));
  // The item loop is uniform across the workgroup (or subgroup), as the
  // reduction requires.
  auto [first, stride] = rows.itemWalk(workgroups);
  kb.forLoop(first, kb.index(rows.items()), stride, [&](Value item) { rows.emitItem(item); });
}

void buildRowEpilogueKernel(ArrayRef<stage::MatVecOp> ops, KernelBuilder &kb,
                            const std::function<void(Value row)> &epilogue) {
  stage::MatVecOp first = ops.front();
  int64_t perItem = rowsPerItem(first.getFormat(), first.getRows(), kb.options());
  SmallVector<MatVecRows> matvecs;
  matvecs.reserve(ops.size());
  for (stage::MatVecOp op : ops)
    matvecs.emplace_back(op, kb, perItem, matvecs);
  for (size_t i = 0; i < matvecs.size(); ++i)
    matvecs[i].stageInput(ArrayRef<MatVecRows>(matvecs).take_front(i));
  int64_t items = matvecs.front().items();
  int64_t workgroups =
      kb.gridWorkgroups(gridFor(items, kb.getWorkgroupSize(), kb.options()));
  bool shared = llvm::all_of(matvecs, [&](MatVecRows &m) {
    return m.sameItems(matvecs.front());
  });
  auto [firstItem, stride] = matvecs.front().itemWalk(workgroups);
  kb.forLoop(firstItem, kb.index(items), stride, [&](Value item) {
    SmallVector<MatVecRows::Item> its;
    SmallVector<SmallVector<Value>> totals;
    if (shared) {
      // One pass over the columns for every mat-vec (gate and up, even
      // with q8_2f's own column scales): all their rows' loads in flight
      // together, one reduction.
      for (MatVecRows &m : matvecs)
        its.push_back(m.itemAt(item));
      SmallVector<Value> all = matvecs.front().sumOverItem(MatVecRows::partials(matvecs, its));
      totals = MatVecRows::totals(matvecs, all);
    } else {
      for (MatVecRows &m : matvecs) {
        its.push_back(m.itemAt(item));
        totals.push_back(m.totalsOf(its.back()));
      }
    }
    for (MatVecRows &m : matvecs)
      m.afterTotals(item);
    matvecs.front().forEachOwnedRow([&](Value r) {
      Value row;
      for (auto [i, m] : llvm::enumerate(matvecs))
        row = m.storeRow(its[i], totals[i], r);
      // This thread stored every mat-vec's value of the row: it alone
      // reads them.
      kb.ifThen(matvecs.front().ownsRow(r, row), [&] { epilogue(row); });
    });
  });
}

} // namespace kiln
