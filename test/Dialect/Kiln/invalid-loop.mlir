// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// Every verifier rule of kiln.loop and kiln.mix, one case each.

func.func @f(%s: !kiln.loop_state<hidden = 64>, %h: tensor<64xf32>) {
  // expected-error @+1 {{passes (0) must be >= 1}}
  %y = kiln.loop %h, %s passes(0) : tensor<64xf32>, !kiln.loop_state<hidden = 64> body {
  ^bb0(%x: tensor<64xf32>, %i: index):
    kiln.yield %x : tensor<64xf32>
  }
  return
}

// -----

func.func @f(%s: !kiln.loop_state<hidden = 32>, %h: tensor<64xf32>) {
  // expected-error @+1 {{input has 64 values but the loop state holds rows of 32}}
  %y = kiln.loop %h, %s passes(2) : tensor<64xf32>, !kiln.loop_state<hidden = 32> body {
  ^bb0(%x: tensor<64xf32>, %i: index):
    kiln.yield %x : tensor<64xf32>
  }
  return
}

// -----

func.func @f(%s: !kiln.loop_state<hidden = 64>, %h: tensor<64xf32>) {
  // expected-error @+1 {{body must take (h: 'tensor<64xf32>', pass: index)}}
  %y = kiln.loop %h, %s passes(2) : tensor<64xf32>, !kiln.loop_state<hidden = 64> body {
  ^bb0(%x: tensor<64xf32>):
    kiln.yield %x : tensor<64xf32>
  }
  return
}

// -----

func.func @f(%s: !kiln.loop_state<hidden = 64>, %h: tensor<64xf32>) {
  // expected-error @+1 {{body region must yield exactly one value}}
  %y = kiln.loop %h, %s passes(2) : tensor<64xf32>, !kiln.loop_state<hidden = 64> body {
  ^bb0(%x: tensor<64xf32>, %i: index):
    kiln.yield %x, %x : tensor<64xf32>, tensor<64xf32>
  }
  return
}

// -----

func.func @f(%s: !kiln.loop_state<hidden = 64>, %h: tensor<64xf32>) {
  // expected-error @+1 {{body yields 'index', expected 'tensor<64xf32>'}}
  %y = kiln.loop %h, %s passes(2) : tensor<64xf32>, !kiln.loop_state<hidden = 64> body {
  ^bb0(%x: tensor<64xf32>, %i: index):
    kiln.yield %i : index
  }
  return
}

// -----

func.func @f(%s: !kiln.loop_state<hidden = 64>, %h: tensor<64xf32>) {
  // expected-error @+1 {{has a readout region exactly when it has an exit_threshold}}
  %y = kiln.loop %h, %s passes(2) : tensor<64xf32>, !kiln.loop_state<hidden = 64> body {
  ^bb0(%x: tensor<64xf32>, %i: index):
    kiln.yield %x : tensor<64xf32>
  } readout {
  ^bb0(%x: tensor<64xf32>):
    %p = kiln.max_prob %x : tensor<64xf32>
    kiln.yield %p : f32
  }
  return
}

// -----

func.func @f(%s: !kiln.loop_state<hidden = 64>, %h: tensor<64xf32>) {
  // expected-error @+1 {{has a readout region exactly when it has an exit_threshold}}
  %y = kiln.loop %h, %s passes(2) exit_threshold(0.5) : tensor<64xf32>, !kiln.loop_state<hidden = 64> body {
  ^bb0(%x: tensor<64xf32>, %i: index):
    kiln.yield %x : tensor<64xf32>
  }
  return
}

// -----

func.func @f(%s: !kiln.loop_state<hidden = 64>, %h: tensor<64xf32>) {
  // expected-error @+1 {{exit_threshold (1.500000e+00) must be in (0, 1]}}
  %y = kiln.loop %h, %s passes(2) exit_threshold(1.5) : tensor<64xf32>, !kiln.loop_state<hidden = 64> body {
  ^bb0(%x: tensor<64xf32>, %i: index):
    kiln.yield %x : tensor<64xf32>
  } readout {
  ^bb0(%x: tensor<64xf32>):
    %p = kiln.max_prob %x : tensor<64xf32>
    kiln.yield %p : f32
  }
  return
}

// -----

func.func @f(%s: !kiln.loop_state<hidden = 64>, %h: tensor<64xf32>) {
  // expected-error @+1 {{exit_threshold (0.000000e+00) must be in (0, 1]}}
  %y = kiln.loop %h, %s passes(2) exit_threshold(0.0) : tensor<64xf32>, !kiln.loop_state<hidden = 64> body {
  ^bb0(%x: tensor<64xf32>, %i: index):
    kiln.yield %x : tensor<64xf32>
  } readout {
  ^bb0(%x: tensor<64xf32>):
    %p = kiln.max_prob %x : tensor<64xf32>
    kiln.yield %p : f32
  }
  return
}

// -----

func.func @f(%s: !kiln.loop_state<hidden = 64>, %h: tensor<64xf32>) {
  // expected-error @+1 {{readout must take (h: 'tensor<64xf32>')}}
  %y = kiln.loop %h, %s passes(2) exit_threshold(0.5) : tensor<64xf32>, !kiln.loop_state<hidden = 64> body {
  ^bb0(%x: tensor<64xf32>, %i: index):
    kiln.yield %x : tensor<64xf32>
  } readout {
  ^bb0(%x: tensor<64xf32>, %i: index):
    %p = kiln.max_prob %x : tensor<64xf32>
    kiln.yield %p : f32
  }
  return
}

// -----

func.func @f(%s: !kiln.loop_state<hidden = 64>, %h: tensor<64xf32>) {
  // expected-error @+1 {{readout must yield an f32 probability, got 'tensor<64xf32>'}}
  %y = kiln.loop %h, %s passes(2) exit_threshold(0.5) : tensor<64xf32>, !kiln.loop_state<hidden = 64> body {
  ^bb0(%x: tensor<64xf32>, %i: index):
    kiln.yield %x : tensor<64xf32>
  } readout {
  ^bb0(%x: tensor<64xf32>):
    kiln.yield %x : tensor<64xf32>
  }
  return
}

// -----

func.func @f(%s: !kiln.loop_state<hidden = 64>, %h: tensor<64xf32>) {
  // expected-error @+1 {{readout region must yield exactly one value}}
  %y = kiln.loop %h, %s passes(2) exit_threshold(0.5) : tensor<64xf32>, !kiln.loop_state<hidden = 64> body {
  ^bb0(%x: tensor<64xf32>, %i: index):
    kiln.yield %x : tensor<64xf32>
  } readout {
  ^bb0(%x: tensor<64xf32>):
    kiln.yield
  }
  return
}

// -----

func.func @f(%s: !kiln.loop_state<hidden = 32>, %h: tensor<64xf32>) {
  // expected-error @+1 {{input has 64 values but the loop state holds rows of 32}}
  %y = kiln.mix enter %s, %h {eps = 1.0e-06 : f32} : !kiln.loop_state<hidden = 32>, tensor<64xf32>
  return
}

// -----

func.func @f(%s: !kiln.loop_state<hidden = 64>, %h: tensor<64xf32>) {
  // expected-error @+1 {{eps must be > 0}}
  %y = kiln.mix leave %s, %h {eps = 0.0 : f32} : !kiln.loop_state<hidden = 64>, tensor<64xf32>
  return
}
