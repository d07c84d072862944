"""Seeds mlir_parser_fuzzer: every split-input chunk of the .mlir tests under test/Dialect,
test/Conversion and test/Target/SPIRV, comments dropped, one file each.

  python3 fuzz/mlir_corpus.py SOURCE_ROOT OUT_DIR"""
import glob
import os
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: mlir_corpus.py SOURCE_ROOT OUT_DIR")
    root, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    files = []
    for pattern in ("test/Dialect/**/*.mlir", "test/Conversion/**/*.mlir", "test/Target/SPIRV/*.mlir"):
        files += sorted(glob.glob(os.path.join(root, pattern), recursive=True))
    count = 0
    for path in files:
        for i, chunk in enumerate(open(path).read().split("// -----")):
            text = "\n".join(l for l in chunk.split("\n") if not l.strip().startswith("//")).strip()
            if text:
                with open(os.path.join(out, f"{os.path.basename(path)}.{i}"), "w") as f:
                    f.write(text + "\n")
                count += 1
    print(f"{count} seeds from {len(files)} files")


main()
