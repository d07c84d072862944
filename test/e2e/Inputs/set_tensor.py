"""Writes a copy of a safetensors file with one F32 tensor filled with a value.

usage: set_tensor.py IN.safetensors OUT.safetensors NAME VALUE
Used by the end-to-end tests to reach weights kiln-synth does not make (every
expert of a layer masked by its growth shell, say). The header is kept as is.
"""
import json
import struct
import sys


def main():
    src, dst, name, value = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    data = bytearray(open(src, "rb").read())
    (size,) = struct.unpack_from("<Q", data, 0)
    header = json.loads(data[8:8 + size])
    entry = header[name]
    if entry["dtype"] != "F32":
        sys.exit(f"set_tensor.py: {name} is {entry['dtype']}, not F32")
    begin, end = entry["data_offsets"]
    base = 8 + size
    for at in range(base + begin, base + end, 4):
        struct.pack_into("<f", data, at, value)
    open(dst, "wb").write(data)


if __name__ == "__main__":
    main()
