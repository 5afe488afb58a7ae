#!/usr/bin/env python3
"""Writes an X3D XML file of about SIZE_MB megabytes whose tracks no glTF
keyframe format holds: TRANSFORMS Transforms (250 by default), each turned
by a SquadOrientationInterpolator and moved by a PositionInterpolator
through an EaseInEaseOut, with as many keys as the size allows
(deterministic values). The default bake fits every track within its bound.
Usage: gen_tracks.py OUT [SIZE_MB] [TRANSFORMS]"""
import math
import random
import sys

out = sys.argv[1]
size_mb = float(sys.argv[2]) if len(sys.argv) > 2 else 40.0
transforms = int(sys.argv[3]) if len(sys.argv) > 3 else 250
rng = random.Random(2)
# About 34 bytes a key of each track (key, rotation; key, position).
keys = max(3, int(size_mb * 1_000_000 / transforms / 2 / 34))


def fractions():
    return " ".join(f"{k / (keys - 1):.6f}" for k in range(keys))


with open(out, "w") as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n<X3D profile="Immersive" version="4.0"><Scene>\n')
    f.write('<TimeSensor DEF="Clock" cycleInterval="60" loop="true"/>\n')
    f.write('<EaseInEaseOut DEF="Ease" key="0 0.5 1" easeInEaseOut="0 0.4, 0.4 0.4, 0.4 0"/>\n')
    f.write('<ROUTE fromNode="Clock" fromField="fraction_changed" toNode="Ease" toField="set_fraction"/>\n')
    for t in range(transforms):
        f.write(f'<Transform DEF="T{t}"><Shape><Box/></Shape></Transform>\n')
        # A slow random walk of rotations: each key turns a little.
        axis, angle, rot = [0.0, 1.0, 0.0], 0.0, []
        pos, p = [], [0.0, 0.0, 0.0]
        for _ in range(keys):
            axis = [a + rng.uniform(-0.05, 0.05) for a in axis]
            n = math.sqrt(sum(a * a for a in axis))
            axis = [a / n for a in axis]
            angle += rng.uniform(-0.05, 0.05)
            rot.append(f"{axis[0]:.4f} {axis[1]:.4f} {axis[2]:.4f} {angle:.4f}")
            p = [c + rng.uniform(-0.1, 0.1) for c in p]
            pos.append(f"{p[0]:.3f} {p[1]:.3f} {p[2]:.3f}")
        f.write(f'<SquadOrientationInterpolator DEF="R{t}" key="{fractions()}" keyValue="{", ".join(rot)}"/>\n')
        f.write(f'<PositionInterpolator DEF="P{t}" key="{fractions()}" keyValue="{", ".join(pos)}"/>\n')
        f.write(f'<ROUTE fromNode="Clock" fromField="fraction_changed" toNode="R{t}" toField="set_fraction"/>\n')
        f.write(f'<ROUTE fromNode="R{t}" fromField="value_changed" toNode="T{t}" toField="rotation"/>\n')
        f.write(f'<ROUTE fromNode="Ease" fromField="modifiedFraction_changed" toNode="P{t}" toField="set_fraction"/>\n')
        f.write(f'<ROUTE fromNode="P{t}" fromField="value_changed" toNode="T{t}" toField="translation"/>\n')
    f.write("</Scene></X3D>\n")
