// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// Every verifier rule of embed, rms_norm, matvec and the elementwise ops, one case each.

func.func @f(%t: !kiln.weight<[256, 72], q8_2f>, %i: index) {
  // expected-error @+1 {{table must be stored as f16 (it is gathered, not multiplied), got q8_2f}}
  %h = kiln.embed %t[%i] : !kiln.weight<[256, 72], q8_2f> -> tensor<72xf32>
  return
}

// -----

func.func @f(%t: !kiln.weight<[256, 72], f16>, %i: index) {
  // expected-error @+1 {{result has 64 values, expected 72 (the table's cols)}}
  %h = kiln.embed %t[%i] : !kiln.weight<[256, 72], f16> -> tensor<64xf32>
  return
}

// -----

func.func @f(%x: tensor<8xf32>, %w: tensor<8xf32>) {
  // expected-error @+1 {{eps must be > 0}}
  %y = kiln.rms_norm %x, %w {eps = 0.0 : f32} : tensor<8xf32>
  return
}

// -----

func.func @f(%w: !kiln.weight<[96, 72], q8_2f>, %x: tensor<64xf32>) {
  // expected-error @+1 {{input has 64 values, expected 72 (the weight's cols)}}
  %y = kiln.matvec %w, %x : !kiln.weight<[96, 72], q8_2f>, tensor<64xf32> -> tensor<96xf32>
  return
}

// -----

func.func @f(%w: !kiln.weight<[96, 72], q8_2f>, %x: tensor<72xf32>) {
  // expected-error @+1 {{result has 72 values, expected 96 (the weight's rows)}}
  %y = kiln.matvec %w, %x : !kiln.weight<[96, 72], q8_2f>, tensor<72xf32> -> tensor<72xf32>
  return
}

// -----

func.func @f(%w: tensor<4x8x2xf32>, %x: tensor<8xf32>) {
  // expected-error @+1 {{must be !kiln.weight or static 2-D tensor of f32}}
  %y = kiln.matvec %w, %x : tensor<4x8x2xf32>, tensor<8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<8xf16>, %b: tensor<8xf16>) {
  // expected-error @+1 {{must be static 1-D tensor of f32}}
  %y = kiln.add %a, %b : tensor<8xf16>
  return
}

// -----

func.func @f(%a: tensor<?xf32>) {
  // expected-error @+1 {{must be static 1-D tensor of f32}}
  %y = kiln.silu %a : tensor<?xf32>
  return
}
