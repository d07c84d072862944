"""Writes a copy of a model config with keys set or removed.

usage: edit_config.py IN.json OUT.json [dotted.key=JSON | dotted.key=DEL]...
Used by the end-to-end tests to reach variants of the shipped examples
(no MoE, no far field, other head counts) without copying whole configs.
"""
import json
import sys


def main():
    config = json.load(open(sys.argv[1]))
    for edit in sys.argv[3:]:
        key, value = edit.split("=", 1)
        *path, last = key.split(".")
        node = config
        for part in path:
            node = node[part]
        if value == "DEL":
            del node[last]
        else:
            node[last] = json.loads(value)
    with open(sys.argv[2], "w") as out:
        json.dump(config, out)


if __name__ == "__main__":
    main()
