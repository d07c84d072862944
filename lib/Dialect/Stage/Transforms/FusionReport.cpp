//===- FusionReport.cpp - What fusion decided, as text --------------------===//
#include "kiln/Dialect/Stage/Transforms/FusionReport.h"

#include "kiln/Dialect/Stage/IR/StageModule.h"
#include "kiln/Dialect/Stage/IR/StageOps.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

#include <cstdio>

using namespace mlir;

namespace kiln::stage {

double FunctionReport::totalMicros() const {
  double total = 0;
  for (const DispatchReport &d : dispatches)
    total += d.micros > 0 && !d.firstCallOnly ? d.micros : 0;
  return total;
}

FusionReport buildFusionReport(ModuleOp module) {
  FusionReport report;
  if (auto name = module->getAttrOfType<StringAttr>(kTargetNameAttr))
    report.target = name.str();
  module.walk([&](FunctionOpInterface func) {
    // The estimates price one row: a multi-row program (@prefill) has none.
    if (programRows(func) > 1)
      return;
    FunctionReport fn;
    fn.function = SymbolTable::getSymbolName(func).str();
    func.walk([&](DispatchOp dispatch) {
      DispatchReport d;
      d.name = dispatch.getKernelName() ? dispatch.getKernelName()->str()
                                        : "(unnamed)";
      if (std::optional<StringRef> form = dispatch.getFusion())
        d.form = form->str();
      for (Operation &op : dispatch.getBody().front())
        d.stages.push_back(op.getName().stripDialect().str());
      d.firstCallOnly = dispatch.runsInFirstCallOnly();
      if (auto e = dispatch->getAttrOfType<FloatAttr>(kEstimatedMicrosAttr))
        d.micros = e.getValueAsDouble();
      fn.dispatches.push_back(std::move(d));
    });
    if (!fn.dispatches.empty())
      report.functions.push_back(std::move(fn));
  });
  return report;
}

std::string formatFusionReport(const FusionReport &report) {
  char buffer[64];
  std::string out = "fusion report: target " +
                    (report.target.empty() ? std::string("(none)") : report.target) + "\n";
  for (const FunctionReport &fn : report.functions) {
    out += "func @" + fn.function + "\n";
    size_t stages = 0, firstCall = 0;
    for (auto [index, d] : llvm::enumerate(fn.dispatches)) {
      std::snprintf(buffer, sizeof buffer, "  #%-3zu %10.3f us  ", index, d.micros);
      out += buffer + d.name + " [";
      for (auto [k, s] : llvm::enumerate(d.stages))
        out += (k ? ", " : "") + s;
      out += "]";
      if (!d.form.empty())
        out += " " + d.form;
      if (d.firstCallOnly)
        out += " first_call";
      out += "\n";
      if (!d.firstCallOnly)
        stages += d.stages.size();
      firstCall += d.firstCallOnly;
    }
    std::snprintf(buffer, sizeof buffer, "%.3f us", fn.totalMicros());
    out += "  total: " + std::to_string(fn.dispatches.size() - firstCall) + " dispatches, " +
           std::to_string(stages) + " stages, " + buffer + " per token (estimate)";
    if (firstCall)
      out += "; " + std::to_string(firstCall) + " more in a session's first call only";
    out += "\n";
  }
  return out;
}

} // namespace kiln::stage
