#!/usr/bin/env python3
"""Writes an X3D XML file of BOXES boxes (3 000 by default), each
Material's diffuseColor moved by a ColorInterpolator of four keys from one
clock (deterministic colours): many small tracks that glTF cannot hold
(X3D interpolates colours in HSV), each fitted within its bound, and as
many KHR_animation_pointer channels.
Usage: gen_colors.py OUT [BOXES]"""
import random
import sys

out = sys.argv[1]
boxes = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
rng = random.Random(1)
lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<X3D profile="Immersive" version="4.0"><Scene>',
    '<TimeSensor DEF="Clock" cycleInterval="10" loop="true"/>',
]
for i in range(boxes):
    lines.append(
        f'<Transform translation="{i % 60} {i // 60} 0"><Shape><Appearance>'
        f'<Material DEF="M{i}"/></Appearance><Box size="0.5 0.5 0.5"/></Shape></Transform>'
    )
    colours = " ".join(
        f"{rng.random():.3f} {rng.random():.3f} {rng.random():.3f}" for _ in range(4)
    )
    lines.append(f'<ColorInterpolator DEF="C{i}" key="0 0.3 0.6 1" keyValue="{colours}"/>')
    lines.append(
        f'<ROUTE fromNode="Clock" fromField="fraction_changed" toNode="C{i}" toField="set_fraction"/>'
    )
    lines.append(
        f'<ROUTE fromNode="C{i}" fromField="value_changed" toNode="M{i}" toField="diffuseColor"/>'
    )
lines.append("</Scene></X3D>")
with open(out, "w") as f:
    f.write("\n".join(lines) + "\n")
