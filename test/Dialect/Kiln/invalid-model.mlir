// REQUIRES: compiler
// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// Every verifier rule of kiln.model, declarations, step and symbol uses, one case each.

// expected-error @+1 {{hidden (0) must be >= 1}}
kiln.model @m embryo attributes {eps = 1.0e-06 : f32, hidden = 0 : i64, intermediate = 4 : i64, vocab = 4 : i64} {
  kiln.weight_decl @lp : tensor<4xf32>
  kiln.step {
  ^bb0(%t: index, %p: index):
    %l = kiln.weight @lp : tensor<4xf32>
    kiln.return %l : tensor<4xf32>
  }
}

// -----

// expected-error @+1 {{intermediate (0) must be >= 1}}
kiln.model @m embryo attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 0 : i64, vocab = 4 : i64} {
  kiln.weight_decl @lp : tensor<4xf32>
  kiln.step {
  ^bb0(%t: index, %p: index):
    %l = kiln.weight @lp : tensor<4xf32>
    kiln.return %l : tensor<4xf32>
  }
}

// -----

// expected-error @+1 {{vocab (1) must be >= 2}}
kiln.model @m embryo attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 4 : i64, vocab = 1 : i64} {
  kiln.weight_decl @lp : tensor<4xf32>
  kiln.step {
  ^bb0(%t: index, %p: index):
    %l = kiln.weight @lp : tensor<4xf32>
    kiln.return %l : tensor<4xf32>
  }
}

// -----

// expected-error @+1 {{eps (0.000000e+00) must be > 0}}
kiln.model @m embryo attributes {eps = 0.0 : f32, hidden = 8 : i64, intermediate = 4 : i64, vocab = 4 : i64} {
  kiln.weight_decl @lp : tensor<4xf32>
  kiln.step {
  ^bb0(%t: index, %p: index):
    %l = kiln.weight @lp : tensor<4xf32>
    kiln.return %l : tensor<4xf32>
  }
}

// -----

// expected-error @+1 {{must hold exactly one kiln.step, found 0}}
kiln.model @m embryo attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 4 : i64, vocab = 4 : i64} {
  kiln.weight_decl @lp : tensor<4xf32>
}

// -----

kiln.model @m embryo attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 4 : i64, vocab = 4 : i64} {
  kiln.weight_decl @lp : tensor<4xf32>
  // expected-error @+1 {{is not allowed in a kiln.model body}}
  %c = arith.constant 0 : index
  kiln.step {
  ^bb0(%t: index, %p: index):
    %l = kiln.weight @lp : tensor<4xf32>
    kiln.return %l : tensor<4xf32>
  }
}

// -----

kiln.model @m embryo attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 4 : i64, vocab = 4 : i64} {
  kiln.weight_decl @lp : tensor<4xf32>
  // expected-error @+1 {{type must be a !kiln.weight matrix or a static f32 tensor, got 'tensor<4xi32>'}}
  kiln.weight_decl @bad : tensor<4xi32>
  kiln.step {
  ^bb0(%t: index, %p: index):
    %l = kiln.weight @lp : tensor<4xf32>
    kiln.return %l : tensor<4xf32>
  }
}

// -----

kiln.model @m embryo attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 4 : i64, vocab = 4 : i64} {
  kiln.weight_decl @lp : tensor<4xf32>
  // expected-error @+1 {{type must be a kiln state type, got 'tensor<4xf32>'}}
  kiln.state_decl @bad : tensor<4xf32>
  kiln.step {
  ^bb0(%t: index, %p: index):
    %l = kiln.weight @lp : tensor<4xf32>
    kiln.return %l : tensor<4xf32>
  }
}

// -----

kiln.model @m embryo attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 4 : i64, vocab = 4 : i64} {
  kiln.weight_decl @lp : tensor<4xf32>
  // expected-error @+1 {{body must take (token: index, position: index) or (token: index, position: index, top_p: f32)}}
  kiln.step {
  ^bb0(%t: index):
    %l = kiln.weight @lp : tensor<4xf32>
    kiln.return %l : tensor<4xf32>
  }
}

// -----

kiln.model @m embryo attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 4 : i64, vocab = 4 : i64} {
  kiln.weight_decl @lp : tensor<5xf32>
  kiln.step {
  ^bb0(%t: index, %p: index):
    %l = kiln.weight @lp : tensor<5xf32>
    // expected-error @+1 {{returns 5 log-probs, but the model's vocab is 4}}
    kiln.return %l : tensor<5xf32>
  }
}

// -----

kiln.model @m embryo attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 4 : i64, vocab = 4 : i64} {
  kiln.weight_decl @lp : tensor<4xf32>
  kiln.step {
  ^bb0(%t: index, %p: index):
    // expected-error @+1 {{'missing' does not name a kiln.weight_decl}}
    %l = kiln.weight @missing : tensor<4xf32>
    kiln.return %l : tensor<4xf32>
  }
}

// -----

kiln.model @m embryo attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 4 : i64, vocab = 4 : i64} {
  kiln.weight_decl @lp : tensor<4xf32>
  kiln.weight_decl @w : tensor<8xf32>
  kiln.step {
  ^bb0(%t: index, %p: index):
    // expected-error @+1 {{type 'tensor<9xf32>' differs from @w's declared type 'tensor<8xf32>'}}
    %w = kiln.weight @w : tensor<9xf32>
    %l = kiln.weight @lp : tensor<4xf32>
    kiln.return %l : tensor<4xf32>
  }
}

// -----

kiln.model @m embryo attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 4 : i64, vocab = 4 : i64} {
  kiln.weight_decl @lp : tensor<4xf32>
  kiln.state_decl @ring : !kiln.conv_ring<channels = 4, taps = 2>
  kiln.step {
  ^bb0(%t: index, %p: index):
    // expected-error @+1 {{'lp' does not name a kiln.state_decl}}
    %s = kiln.state @lp : !kiln.conv_ring<channels = 4, taps = 2>
    %l = kiln.weight @lp : tensor<4xf32>
    kiln.return %l : tensor<4xf32>
  }
}

// -----

kiln.model @m embryo attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 4 : i64, vocab = 4 : i64} {
  kiln.weight_decl @lp : tensor<4xf32>
  kiln.state_decl @ring : !kiln.conv_ring<channels = 4, taps = 2>
  kiln.step {
  ^bb0(%t: index, %p: index):
    // expected-error @+1 {{differs from @ring's declared type}}
    %s = kiln.state @ring : !kiln.conv_ring<channels = 4, taps = 3>
    %l = kiln.weight @lp : tensor<4xf32>
    kiln.return %l : tensor<4xf32>
  }
}

// -----

// A step body with no op at all (mlir_parser_fuzzer found the verifier reading past
// the empty block; the sanitized build, scripts/sanitize-compiler.sh, catches it again).
kiln.model @m embryo attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 4 : i64, vocab = 4 : i64} {
  kiln.weight_decl @lp : tensor<4xf32>
  // expected-error @+1 {{body must end in kiln.return}}
  kiln.step {
  ^bb0(%t: index, %p: index):
  }
}

// -----

// The step checks the return's type before the return is verified itself.
kiln.model @m embryo attributes {eps = 1.0e-06 : f32, hidden = 8 : i64, intermediate = 4 : i64, vocab = 4 : i64} {
  kiln.weight_decl @lp : tensor<4xf32>
  kiln.step {
  ^bb0(%t: index, %p: index):
    // expected-error @+1 {{returns 'index', expected a 1-D static f32 tensor of log-probs}}
    kiln.return %t : index
  }
}
