#!/usr/bin/env python3
"""Writes a float-heavy X3D XML file of about SIZE_MB megabytes: a mesh and a
CoordinateInterpolator morphing it over many keys (deterministic values)."""
import random
import sys

size_mb = float(sys.argv[2]) if len(sys.argv) > 2 else 50.0
out = sys.argv[1]
rng = random.Random(1)
points = 20000
target = int(size_mb * 1_000_000)


def pts(n):
    return ", ".join(
        f"{rng.uniform(-10, 10):.6f} {rng.uniform(-10, 10):.6f} {rng.uniform(-10, 10):.6f}" for _ in range(n)
    )


with open(out, "w") as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n<X3D profile="Immersive" version="3.3"><Scene>\n')
    f.write('<Shape><IndexedFaceSet coordIndex="')
    f.write(" ".join(f"{i} {i + 1} {i + 2} -1" for i in range(0, points - 2, 3)))
    f.write(f'"><Coordinate DEF="Mesh" point="{pts(points)}"/></IndexedFaceSet></Shape>\n')
    per_key = len(pts(points)) + 2
    keys = max(2, (target - f.tell()) // per_key)
    f.write('<CoordinateInterpolator DEF="Morph" key="')
    f.write(" ".join(f"{k / (keys - 1):.6f}" for k in range(keys)))
    f.write('" keyValue="')
    for k in range(keys):
        f.write(pts(points))
        f.write(",\n" if k + 1 < keys else "")
    f.write('"/>\n<TimeSensor DEF="Clock" cycleInterval="10" loop="true"/>\n')
    f.write('<ROUTE fromNode="Clock" fromField="fraction_changed" toNode="Morph" toField="set_fraction"/>\n')
    f.write('<ROUTE fromNode="Morph" fromField="value_changed" toNode="Mesh" toField="point"/>\n')
    f.write("</Scene></X3D>\n")
