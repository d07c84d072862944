//===- PlanJson.cpp - Hand-written JSON dump of a plan --------------------===//
#include "kiln/Target/Plan/PlanJson.h"

#include "kiln/schemas/plan_generated.h"

#include <nlohmann/json.hpp>

namespace kiln {
namespace {

using Json = nlohmann::ordered_json;

Json dim3(const plan::Dim3 *d) {
  if (!d)
    return nullptr;
  return Json::array({d->x(), d->y(), d->z()});
}

std::string str(const flatbuffers::String *s) { return s ? s->str() : std::string(); }

Json subgroupFeatures(plan::SubgroupFeature features) {
  Json names = Json::array();
  auto bits = static_cast<uint32_t>(features);
  static const char *const kNames[] = {"Basic",   "Vote",            "Arithmetic", "Ballot",
                                       "Shuffle", "ShuffleRelative", "Clustered",  "Quad"};
  for (int i = 0; i < 8; ++i)
    if (bits & (1u << i))
      names.push_back(kNames[i]);
  return names;
}

Json dumpPlan(const plan::Plan &p) {
  Json root;
  root["schema_version"] = p.schema_version();
  root["target"] = plan::EnumNameTarget(p.target());
  root["producer"] = str(p.producer());
  root["model_family"] = str(p.model_family());
  root["weight_format"] = str(p.weight_format());
  root["vocab_size"] = p.vocab_size();
  root["max_position"] = p.max_position();
  root["config_json_bytes"] = p.config_json() ? p.config_json()->size() : 0;

  Json buffers = Json::array();
  if (p.buffers())
    for (const plan::Buffer *b : *p.buffers())
      buffers.push_back({{"id", b->id()},
                         {"kind", plan::EnumNameBufferKind(b->kind())},
                         {"byte_size", b->byte_size()},
                         {"zero_initialised", b->zero_initialised()},
                         {"name", str(b->name())}});
  root["buffers"] = buffers;

  Json weights = Json::array();
  if (p.weights())
    for (const plan::WeightTensor *w : *p.weights()) {
      Json shape = Json::array();
      for (uint64_t d : *w->shape())
        shape.push_back(d);
      weights.push_back({{"name", str(w->name())},
                         {"dtype", plan::EnumNameDType(w->dtype())},
                         {"shape", shape},
                         {"buffer", w->buffer()},
                         {"byte_offset", w->byte_offset()},
                         {"layout", plan::EnumNameWeightLayout(w->layout())},
                         {"row_pitch_bytes", w->row_pitch_bytes()}});
    }
  root["weights"] = weights;

  Json kernels = Json::array();
  if (p.kernels())
    for (const plan::Kernel *k : *p.kernels()) {
      Json bindings = Json::array();
      if (k->bindings())
        for (const plan::Binding *b : *k->bindings())
          bindings.push_back({{"binding", b->binding()},
                              {"buffer", b->buffer()},
                              {"access", plan::EnumNameAccess(b->access())},
                              {"kind", plan::EnumNameDescriptorKind(b->kind())},
                              {"byte_offset", b->byte_offset()},
                              {"byte_range", b->byte_range()}});
      kernels.push_back({{"name", str(k->name())},
                         {"entry_point", str(k->entry_point())},
                         {"spirv_words", k->spirv() ? k->spirv()->size() : 0},
                         {"msl_bytes", k->msl_source() ? k->msl_source()->size() : 0},
                         {"workgroup_size", dim3(k->workgroup_size())},
                         {"msl_threadgroup_size", dim3(k->msl_threadgroup_size())},
                         {"push_constant_bytes", k->push_constant_bytes()},
                         {"required_subgroup_size", k->required_subgroup_size()},
                         {"required_subgroup_features",
                          subgroupFeatures(k->required_subgroup_features())},
                         {"bindings", bindings}});
    }
  root["kernels"] = kernels;

  Json params;
  if (const plan::ParamBlock *block = p.params()) {
    params["buffer"] = block->buffer();
    params["byte_size"] = block->byte_size();
    Json fields = Json::array();
    if (block->fields())
      for (const plan::ParamField *f : *block->fields()) {
        Json field = {{"name", str(f->name())},
                      {"byte_offset", f->byte_offset()},
                      {"type", plan::EnumNameParamType(f->type())},
                      {"rule", plan::EnumNameParamRule(f->rule())},
                      {"row", f->row()},
                      {"n", f->n()}};
        if (f->rule() == plan::ParamRule::Constant)
          field["constant"] = f->type() == plan::ParamType::F32 ? Json(f->constant_f32())
                                                                : Json(f->constant_u32());
        fields.push_back(field);
      }
    params["fields"] = fields;
  }
  root["params"] = params;

  Json programs = Json::array();
  if (p.programs())
    for (const plan::Program *program : *p.programs()) {
      Json dispatches = Json::array();
      if (program->dispatches())
        for (const plan::Dispatch *d : *program->dispatches())
          dispatches.push_back({{"kernel", d->kernel()},
                                {"label", str(d->label())},
                                {"grid", dim3(d->grid())},
                                {"grid_mode", plan::EnumNameGridMode(d->grid_mode())},
                                {"barrier_before", d->barrier_before()},
                                {"estimated_us", d->estimated_us()},
                                {"calls", plan::EnumNameDispatchCalls(d->calls())}});
      Json readback;
      if (const plan::Readback *r = program->readback())
        readback = {{"source_buffer", r->source_buffer()},
                    {"source_offset", r->source_offset()},
                    {"buffer", r->buffer()},
                    {"byte_offset", r->byte_offset()},
                    {"count", r->count()},
                    {"values", plan::EnumNameReadbackValues(r->values())}};
      programs.push_back({{"name", str(program->name())},
                          {"max_rows", program->max_rows()},
                          {"bytes_per_call", program->bytes_per_call()},
                          {"dispatches", dispatches},
                          {"readback", readback}});
    }
  root["programs"] = programs;

  Json flags = Json::array();
  if (p.device_flags())
    for (const plan::DeviceFlag *f : *p.device_flags())
      flags.push_back({{"name", str(f->name())},
                       {"buffer", f->buffer()},
                       {"byte_offset", f->byte_offset()},
                       {"reset_value", f->reset_value()}});
  root["device_flags"] = flags;
  if (const plan::Sampling *s = p.sampling())
    root["sampling"] = {{"site", plan::EnumNameSamplingSite(s->site())},
                        {"head_gate", plan::EnumNameHeadGateRule(s->head_gate())}};
  return root;
}

} // namespace

PlanJsonResult planToJson(const uint8_t *data, size_t size) {
  PlanJsonResult result;
  if (size < 8 || !plan::PlanBufferHasIdentifier(data)) {
    result.error = "not a Kiln plan (missing the KPLN file identifier)";
    return result;
  }
  flatbuffers::Verifier verifier(data, size);
  if (!plan::VerifyPlanBuffer(verifier)) {
    result.error = "the plan fails the FlatBuffers verifier (truncated or corrupt)";
    return result;
  }
  result.json = dumpPlan(*plan::GetPlan(data)).dump(2) + "\n";
  result.ok = true;
  return result;
}

} // namespace kiln
