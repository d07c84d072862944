#!/usr/bin/env python3
"""Hand-made reference for test/Target/Plan/Inputs/tiny-head.mlir (no numpy).

  tiny_head.py weights OUT.safetensors   writes deterministic weights
  tiny_head.py check OUT.safetensors PROMPT KILN_RUN_OUTPUT [TOL]
      recomputes every step on the CPU (f32 math in Python doubles, the model
      being embed -> rmsnorm -> log_softmax(C x)), feeds back the greedy
      tokens, and compares with kiln-run --print-logprobs output; prints the
      max abs log-prob error and exits 1 on a token mismatch or error > TOL.
"""
import json
import math
import struct
import sys

V, H, EPS = 6, 16, 1e-6


def values(seed, n, scale):
    # A small LCG: deterministic and portable.
    out, state = [], seed
    for _ in range(n):
        state = (state * 1103515245 + 12345) % (1 << 31)
        out.append((state / (1 << 31) * 2 - 1) * scale)
    return out


def f16(x):
    return struct.unpack("<e", struct.pack("<e", x))[0]


EMBED = [f16(v) for v in values(1, V * H, 2.0)]
NORM = [f16(1 + v) for v in values(2, H, 0.5)]
CLUSTERS = [struct.unpack("<f", struct.pack("<f", v))[0] for v in values(3, V * H, 1.5)]


def write_weights(path):
    tensors = [("embed.weight", "F16", [V, H], struct.pack("<%de" % (V * H), *EMBED)),
               ("norm.weight", "F16", [H], struct.pack("<%de" % H, *NORM)),
               ("head.clusters", "F32", [V, H], struct.pack("<%df" % (V * H), *CLUSTERS))]
    header, data = {"__metadata__": {"kiln.format": "f16"}}, b""
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def step(token):
    h = EMBED[token * H:(token + 1) * H] if token < V else [0.0] * H
    inv = 1 / math.sqrt(sum(v * v for v in h) / H + EPS)
    x = [h[i] * inv * NORM[i] for i in range(H)]
    logits = [sum(CLUSTERS[c * H + i] * x[i] for i in range(H)) for c in range(V)]
    top = max(logits)
    lse = top + math.log(sum(math.exp(l - top) for l in logits))
    return [l - lse for l in logits]


def check(prompt, output, tolerance):
    lines = open(output).read().split("\n")
    got = [(int(l.split()[1]), float(l.split()[3])) for l in lines if l.startswith("token ")]
    token, worst = int(prompt.split(",")[-1]), 0.0
    for i, (got_token, got_logprob) in enumerate(got):
        logprobs = step(token)
        best = max(range(V), key=lambda t: (logprobs[t], -t))
        if best != got_token:
            print("step %d: kiln-run chose %d, the reference %d" % (i, got_token, best))
            return 1
        worst = max(worst, abs(logprobs[best] - got_logprob))
        token = best
    print("steps %d max abs log-prob error %.3g" % (len(got), worst))
    return 0 if got and worst <= tolerance else 1


if __name__ == "__main__":
    if sys.argv[1] == "weights":
        write_weights(sys.argv[2])
    else:
        sys.exit(check(sys.argv[3], sys.argv[4], float(sys.argv[5]) if len(sys.argv) > 5 else 1e-4))
