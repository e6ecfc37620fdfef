# Writes a trace with N passes, each clearing and storing its own SIZE x SIZE image (class 1 signal cases).
import json, sys
n, size, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
images = [{"name": f"img{i:03d}", "format": "RGBA8", "width": size, "height": size} for i in range(n)]
meshes = [{"name": "tri", "positions": [-1, -1, 0.5, 3, -1, 0.5, -1, 3, 0.5],
           "colors": [1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1]}]
passes = [{"name": f"p{i:03d}", "attachments": [{"image": f"img{i:03d}", "load": "clear", "store": "store",
           "clear": [i / n, 0.5, 0.25, 1.0]}],
           "subpasses": [{"color": [0], "draws": [{"name": "d", "mesh": "tri", "program": {"name": "vertex_color"}}]}]}
          for i in range(n)]
json.dump({"format": "tbdrsim-trace", "version": 1, "images": images, "meshes": meshes,
           "frames": [{"passes": passes}]}, open(out, "w"))
