// The C handles: each public opaque type is a reference-counted C++ object holding
// references to what it depends on (session -> plan -> instance), so any release
// order is safe. Members are declared so that dependents are destroyed first.
#ifndef KILN_RUNTIME_API_HANDLES_H
#define KILN_RUNTIME_API_HANDLES_H

#include "base/ref_counted.h"
#include "plan/loaded_plan.h"
#include "session/session.h"
#include "vulkan/device.h"
#include "vulkan/instance.h"

#include "kiln/runtime.h"

#include <memory>

struct kiln_instance_s : kiln::rt::RefCounted {
  kiln::rt::vk::Instance vulkan;
  kiln::rt::vk::Device device; // destroyed before `vulkan`
};

struct kiln_plan_s : kiln::rt::RefCounted {
  kiln::rt::Ref<kiln_instance_s> instance;
  std::unique_ptr<kiln::rt::LoadedPlan> plan;
};

struct kiln_session_s : kiln::rt::RefCounted {
  kiln::rt::Ref<kiln_plan_s> plan;
  std::unique_ptr<kiln::rt::Session> session; // destroyed before `plan`
};

#endif // KILN_RUNTIME_API_HANDLES_H
