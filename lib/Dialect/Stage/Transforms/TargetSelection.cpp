//===- TargetSelection.cpp - Which target descriptor a module is for ------===//
#include "kiln/Dialect/Stage/Transforms/TargetSelection.h"
#include "kiln/Dialect/Stage/Transforms/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <system_error>

using namespace mlir;

namespace kiln::stage {
namespace {

io::Expected<cost::TargetDesc> loadNamed(const std::string &name,
                                         const std::string &directory) {
  if (name.empty() || name.find('/') != std::string::npos)
    return io::Error("target name '" + name + "' must be a plain file stem");
  std::string path = directory + "/" + name + ".json";
  io::Expected<cost::TargetDesc> desc = cost::loadTargetDesc(path);
  if (!desc)
    return desc.error().withPrefix("target '" + name + "': ");
  return desc;
}

/// A dictionary attribute written as the descriptor's JSON object.
io::Expected<cost::TargetDesc> fromDictionary(DictionaryAttr dict) {
  nlohmann::json j = nlohmann::json::object();
  for (NamedAttribute entry : dict) {
    std::string key = entry.getName().str();
    Attribute value = entry.getValue();
    if (auto s = dyn_cast<StringAttr>(value))
      j[key] = s.getValue().str();
    else if (auto f = dyn_cast<FloatAttr>(value))
      j[key] = f.getValueAsDouble();
    else if (auto i = dyn_cast<IntegerAttr>(value))
      j[key] = i.getInt();
    else
      return io::Error("kiln.target: field '" + key +
                       "' must be a string, integer or float attribute");
  }
  io::Expected<cost::TargetDesc> desc = cost::parseTargetDesc(j.dump());
  if (!desc)
    return desc.error().withPrefix("kiln.target: ");
  return desc;
}

} // namespace

std::string defaultTargetDirectory() {
  // An installed tool reads the descriptors installed beside it (<prefix>/bin/.. ->
  // share/kiln/targets, cmake/KilnInstall.cmake); one in the build tree, the source tree's.
  std::error_code error;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    std::filesystem::path installed = self.parent_path().parent_path() / "share" / "kiln" / "targets";
    if (std::filesystem::is_directory(installed, error))
      return installed.string();
  }
  return KILN_DEFAULT_TARGET_DIR;
}

io::Expected<cost::TargetDesc> selectTarget(ModuleOp module,
                                            const TargetChoice &choice) {
  if (!choice.file.empty())
    return cost::loadTargetDesc(choice.file);
  if (!choice.name.empty())
    return loadNamed(choice.name, choice.directory);
  Attribute attr = module->getAttr("kiln.target");
  if (auto name = dyn_cast_or_null<StringAttr>(attr))
    return loadNamed(name.getValue().str(), choice.directory);
  if (auto dict = dyn_cast_or_null<DictionaryAttr>(attr))
    return fromDictionary(dict);
  if (attr)
    return io::Error("kiln.target must be a target name or a dictionary of "
                     "descriptor fields");
  return io::Error("no target: pass target=<name> or target-file=<path>, or "
                   "set the module attribute kiln.target");
}

FailureOr<cost::TargetDesc> selectTargetFor(ModuleOp module, const TargetChoice &choice,
                                            StringRef pass) {
  io::Expected<cost::TargetDesc> target = selectTarget(module, choice);
  if (!target) {
    module.emitError() << pass << ": " << target.error().message();
    return failure();
  }
  return std::move(*target);
}

} // namespace kiln::stage
