#!/usr/bin/env python3
"""Writes the stage-level calibration modules that kiln-calibrate runs.

Each module follows docs/pipeline.md (a func @decode whose arguments are logical
buffers with #stage.buffer attributes). `--scale` shrinks the big ones for slow
devices (lavapipe). Usage: gen.py OUTDIR [--scale 1.0] [--chain 64]
"""
import argparse
import os

HEADER = ('module attributes {kiln.family = "embryo", kiln.vocab_size = 16 : i64, '
          'kiln.max_position = 1000000 : i64, kiln.weight_format = "%s", kiln.config = "{}"} {\n')


def buf(kind, name, slot, extra=""):
    # BYTES: filled in by module() from the argument's memref type.
    return ('{stage.buffer = #stage.buffer<kind = %s, name = "%s", slot = %d, byte_offset = 0, '
            'byte_size = BYTES%s>}' % (kind, name, slot, extra))


def tensor(name, dtype, shape, layout, pitch=0, offset=0):
    dims = ", ".join("%d" % d for d in shape)
    return ('#stage.tensor<name = "%s", dtype = "%s", shape = [%s], layout = "%s", '
            'byte_offset = %d, row_pitch_bytes = %d>' % (name, dtype, dims, layout, offset, pitch))


def memref_bytes(type_text):
    """Bytes of memref<AxBx...xf32>, <...xi32> or <...xvector<4xi32>>."""
    import re
    inner = type_text[len("memref<"):-1]
    element = 16 if inner.endswith("vector<4xi32>") else 4
    count = 1
    for dim in re.findall(r"(\d+)x", inner.replace("vector<4xi32>", "")):
        count *= int(dim)
    return count * element


def module(fmt, args, body):
    # One physical buffer per argument, numbered in argument order.
    import re
    args = [(n, t, re.sub(r"slot = \d+", "slot = %d" % i, attr).replace("BYTES", str(memref_bytes(t))))
            for i, (n, t, attr) in enumerate(args)]
    sig = ",\n    ".join("%%%s: %s %s" % a for a in args)
    readback = [i for i, a in enumerate(args) if "kind = readback" in a[2]][0]
    return (HEADER % fmt +
            '  func.func @decode(\n    %s)\n' % sig +
            '      attributes {stage.readback = #stage.readback<arg = %d, byte_offset = 0, count = 16, '
            'values = "Logits">} {\n' % readback +
            body + '    return\n  }\n}\n')


def common(slot0=0):
    return [("params", "memref<8xi32>", buf("params", "params", slot0)),
            ("out", "memref<16xf32>", buf("readback", "readback", slot0 + 1))]


def add(a, b, o, n):
    t = "memref<%dxf32>" % n
    return ('    stage.dispatch { stage.add ins(%%%s, %%%s : %s, %s) out(%%%s : %s) }\n'
            % (a, b, t, t, o, t))


def tiny_chain(count, independent):
    # Every dispatch but the last reads and writes device-local state: the
    # readback buffer lives in host memory, and a chain through it would time
    # the bus, not the dispatch.
    args = common()
    args.append(("a", "memref<16xf32>", buf("state", "a", 2)))
    body = ""
    if independent:
        # Every dispatch writes its own buffer and reads only `a`: no dependences.
        for i in range(count):
            args.append(("o%d" % i, "memref<16xf32>", buf("state", "o%d" % i, 3 + i)))
            body += add("a", "a", "o%d" % i, 16)
        body += add("o0", "a", "out", 16)
    else:
        args.append(("t", "memref<16xf32>", buf("state", "t", 3)))
        for i in range(count - 1):
            body += add("a" if i == 0 else "t", "a", "t", 16)
        body += add("t" if count > 1 else "a", "a", "out", 16)
    return module("f16", args, body)


def stream(n):
    args = common() + [("x", "memref<%dxf32>" % n, buf("state", "x", 2)),
                       ("y", "memref<%dxf32>" % n, buf("state", "y", 3)),
                       ("z", "memref<%dxf32>" % n, buf("state", "z", 4))]
    body = add("x", "y", "z", n) + add("out", "out", "out", 16)
    return module("f16", args, body)


def read(groups):
    # A pure streaming read: a tiny add, then a stage.prefetch of one state
    # buffer (`read.source`) on workgroups of its own, 8 loads of 16 bytes in
    # flight a thread, nothing written. kiln-calibrate divides that buffer's
    # bytes by the call's GPU time less the tiny plan's: read_bandwidth_gbps.
    rows = groups // 256
    src = "memref<%dx256xvector<4xi32>>" % rows
    args = common() + [("src", src, buf("state", "read.source", 2)),
                       ("sink", "memref<4xi32>", buf("state", "read.sink", 3))]
    body = ('    stage.dispatch {\n'
            '      stage.add ins(%%out, %%out : memref<16xf32>, memref<16xf32>) out(%%out : memref<16xf32>)\n'
            '      stage.prefetch source(%%src : %s) sink(%%sink : memref<4xi32>) '
            '{first_group = 0 : i64, groups = %d : i64}\n'
            '    }\n' % (src, rows * 256))
    return module("f16", args, body)


def single(n):
    # The stream's add squeezed into one workgroup (fusion's one_workgroup form):
    # what a fused kernel that keeps a reduction in one workgroup can move.
    args = common() + [("x", "memref<%dxf32>" % n, buf("state", "x", 2)),
                       ("y", "memref<%dxf32>" % n, buf("state", "y", 3)),
                       ("z", "memref<%dxf32>" % n, buf("state", "z", 4))]
    body = add("x", "y", "z", n).replace("stage.dispatch {", 'stage.dispatch attributes {fusion = "one_workgroup"} {')
    body += add("out", "out", "out", 16)
    return module("f16", args, body)


def matvec(fmt, rows, cols):
    groups = cols // (8 if fmt == "f16" else 16)
    w = "memref<%dx%dxvector<4xi32>>" % (rows, groups)
    if fmt == "f16":
        tensors = "[" + tensor("w", "F16", [rows, cols], "F16RowMajor", cols * 2) + "]"
        wargs = [("w", w, buf("weight", "w", 2, ", tensors = " + tensors))]
        scale = ""
    else:
        tensors = "[" + tensor("w.q", "I8", [rows, cols], "I8RowMajor", cols) + "]"
        wargs = [("w", w, buf("weight", "w.q", 2, ", tensors = " + tensors)),
                 ("s", "memref<%dxf32>" % rows,
                  buf("weight", "w.row_scale", 5,
                      ", tensors = [" + tensor("w.row_scale", "F32", [rows], "F32") + "]"))]
        scale = " row_scale(%%s : memref<%dxf32>)" % rows
    args = common() + wargs + [("x", "memref<%dxf32>" % cols, buf("state", "x", 3)),
                               ("y", "memref<%dxf32>" % rows, buf("state", "y", 4))]
    body = ('    stage.dispatch {\n      stage.matvec weight(%%w : %s)%s input(%%x : memref<%dxf32>)\n'
            '          out(%%y : memref<%dxf32>) {format = #stage.format<%s>}\n    }\n'
            % (w, scale, cols, rows, fmt)) + add("out", "out", "out", 16)
    return module(fmt, args, body)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("outdir")
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--chain", type=int, default=64)
    a = p.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    big = max(1024, int(16 * 1024 * 1024 * a.scale) // 1024 * 1024)  # f32 elements
    rows = max(64, int(8192 * a.scale ** 0.5) // 64 * 64)
    files = {
        "submit": tiny_chain(1, False),
        "chain": tiny_chain(a.chain, False),
        "independent": tiny_chain(a.chain, True),
        "stream": stream(big),
        # 256 MiB at S = 1: above twice the last-level cache of current GPUs.
        "read": read(max(256, int(16 * 1024 * 1024 * a.scale) // 256 * 256)),
        "matvec-f16": matvec("f16", rows, 4096),
        "matvec-q8_2f": matvec("q8_2f", rows, 8192),
        "single": single(max(1024, int(256 * 1024 * a.scale) // 1024 * 1024)),
    }
    for name, text in files.items():
        with open(os.path.join(a.outdir, name + ".mlir"), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
