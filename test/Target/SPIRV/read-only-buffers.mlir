// A storage buffer the kernel only loads from is NonWritable on its block's
// member, as glslang writes a `readonly` buffer; one it stores to (here `%a`,
// read and written in place) is not. The MSL is `const
// device` for the read-only one. kiln-compile --buffer-access undecorated
// leaves every buffer read-write.
// REQUIRES: compiler, spirv-val
// RUN: kiln-translate %s --emit=spirv -o %t.spv && spirv-val --target-env vulkan1.1 %t.spv
// RUN: kiln-translate %s --emit=spirv-dialect | FileCheck %s --check-prefix=SPV
// RUN: kiln-translate %s --emit=msl | FileCheck %s --check-prefix=MSL
// RUN: kiln-compile --quiet --fusion=none --from-stages %s --emit=msl --buffer-access undecorated | FileCheck %s --check-prefix=NONE

// SPV: spirv.GlobalVariable @mul_in_place_arg_0 bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.array<20 x f32, stride=4> [0])>, StorageBuffer>
// SPV: spirv.GlobalVariable @mul_in_place_arg_1 bind(0, 1) : !spirv.ptr<!spirv.struct<(!spirv.array<20 x f32, stride=4> [0, NonWritable])>, StorageBuffer>
// MSL: kernel void mul_in_place(device {{.*}}buffer(0)]], const device {{.*}}buffer(1)]],
// NONE: kernel void mul_in_place(device {{.*}}buffer(0)]], device {{.*}}buffer(1)]],
func.func @f(%a: memref<20xf32>, %b: memref<20xf32>) {
  stage.dispatch "mul_in_place" {
    stage.mul ins(%a, %b : memref<20xf32>, memref<20xf32>) out(%a : memref<20xf32>)
  }
  return
}
