# Writes the hostile input files of hostile.sh (glTF, OBJ, PNG headers, grids, traces): gen_inputs.py KIND OUT [ARGS].
import base64, json, struct, sys, zlib

TRI = struct.pack("<9f", 0, 0, 0, 1, 0, 0, 0, 1, 0)
B64 = "data:application/octet-stream;base64," + base64.b64encode(TRI).decode()

def gltf(node=None, accessor=None, view=None, buffer=None, extra=None, nodes=None, scene_nodes=(0,)):
    doc = {"asset": {"version": "2.0"}, "scenes": [{"nodes": list(scene_nodes)}], "scene": 0,
           "nodes": nodes or [dict({"mesh": 0}, **(node or {}))],
           "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
           "accessors": [dict({"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                               "min": [0, 0, 0], "max": [1, 1, 0]}, **(accessor or {}))],
           "bufferViews": [dict({"buffer": 0, "byteLength": 36}, **(view or {}))],
           "buffers": [dict({"byteLength": 36, "uri": B64}, **(buffer or {}))]}
    doc.update(extra or {})
    return doc

def png_header(w, h):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\0" * 1024)) + chunk(b"IEND", b""))

def main():
    kind, out = sys.argv[1], sys.argv[2]
    a = sys.argv[3:]
    w = lambda text: open(out, "w").write(text)
    if kind == "gltf_ok": json.dump(gltf(), open(out, "w"))
    elif kind == "gltf_accessor_offset": json.dump(gltf(accessor={"byteOffset": 2**64 - 4}), open(out, "w"))
    elif kind == "gltf_view_offset": json.dump(gltf(view={"byteOffset": 2**64 - 8}), open(out, "w"))
    elif kind == "gltf_view_length": json.dump(gltf(view={"byteOffset": 8, "byteLength": 2**64 - 4}), open(out, "w"))
    elif kind == "gltf_stride": json.dump(gltf(view={"byteStride": 252, "byteLength": 36},
                                                accessor={"count": 2**58}), open(out, "w"))
    elif kind == "gltf_count": json.dump(gltf(accessor={"count": 2**60}), open(out, "w"))
    elif kind == "gltf_matrix": json.dump(gltf(node={"matrix": [1e308] * 16}), open(out, "w"))
    elif kind == "gltf_translation_float_inf": json.dump(gltf(node={"translation": [1e39, 0, 0]}), open(out, "w"))
    elif kind == "gltf_uri": json.dump(gltf(buffer={"uri": a[0]}), open(out, "w"))
    elif kind == "gltf_image_uri":  # a textured triangle (TEXCOORD_0) whose image URI is a[0]
        data = TRI + struct.pack("<6f", 0, 0, 1, 0, 0, 1)
        d = gltf(extra={"images": [{"uri": a[0]}], "textures": [{"source": 0}],
                        "materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}]},
                 buffer={"byteLength": 60, "uri": "data:application/octet-stream;base64," + base64.b64encode(data).decode()})
        d["bufferViews"].append({"buffer": 0, "byteOffset": 36, "byteLength": 24})
        d["accessors"].append({"bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC2"})
        d["meshes"][0]["primitives"][0].update(material=0, attributes={"POSITION": 0, "TEXCOORD_0": 1})
        json.dump(d, open(out, "w"))
    elif kind == "gltf_nested":
        depth = int(a[0]); w('{"asset": {"version": "2.0"}, "extras": ' + "[" * depth + "]" * depth + "}")
    elif kind == "glb_nested":
        depth = int(a[0]); js = ('{"asset": {"version": "2.0"}, "extras": ' + "[" * depth + "]" * depth + "}").encode()
        js += b" " * (-len(js) % 4)
        body = struct.pack("<II", len(js), 0x4E4F534A) + js
        open(out, "wb").write(struct.pack("<III", 0x46546C67, 2, 12 + len(body)) + body)
    elif kind == "gltf_exponential":
        depth = int(a[0])  # node i has two children, both node i+1: 2^depth paths
        nodes = [{"children": [i + 1, i + 1]} for i in range(depth)] + [{"mesh": 0}]
        json.dump(gltf(nodes=nodes), open(out, "w"))
    elif kind == "obj_index": w("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 %s\n" % a[0])
    elif kind == "obj_polygon":
        n = int(a[0]); import math
        lines = ["v %.6f %.6f 0" % (math.cos(2 * math.pi * i / n), math.sin(2 * math.pi * i / n)) for i in range(n)]
        w("\n".join(lines) + "\nf " + " ".join(str(i + 1) for i in range(n)) + "\n")
    elif kind == "obj_mtl": w("mtllib %s\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nusemtl m\nf 1/1 2/2 3/3\n" % a[0])
    elif kind == "mtl_map": w("newmtl m\nKd 1 1 1\nmap_Kd %s\n" % a[0])
    elif kind == "png_header": open(out, "wb").write(png_header(int(a[0]), int(a[1])))
    elif kind == "grid_rows":
        n = int(a[0])
        with open(out, "w") as f:
            f.write("dram.bytes_per_cycle\n")
            for i in range(n): f.write("%d\n" % (8 + i % 64))
    elif kind == "texture_trace":  # a trace whose one draw samples texture file a[0]
        t = json.load(open(a[1])); t["textures"][0]["file"] = a[0]; json.dump(t, open(out, "w"))
    elif kind == "sidecar_trace":  # a tiny trace whose mesh positions come from sidecar a[0]
        json.dump({"format": "tbdrsim-trace", "version": 1,
                   "images": [{"name": "color", "format": "RGBA8", "width": 16, "height": 16}],
                   "meshes": [{"name": "tri", "positions": {"file": a[0], "offset": 0, "count": 3}}],
                   "frames": [{"passes": [{"name": "main", "attachments": [{"image": "color", "load": "clear"}],
                       "subpasses": [{"color": [0], "draws": [{"name": "d", "mesh": "tri",
                           "program": {"name": "vertex_color"}}]}]}]}]}, open(out, "w"))
    elif kind == "feedback":  # a[0]: the image the draw samples; a[1]: "same" or "later" subpass
        sub0 = {"color": [0], "draws": [{"name": "fill", "mesh": "tri", "program": {"name": "vertex_color"}}]}
        loop = {"name": "loop", "mesh": "tri", "program": {"name": "textured",
                "bindings": {"texture": {"image": a[0]}}}}
        subs = [dict(sub0, draws=sub0["draws"] + [loop])] if a[1] == "same" else [sub0, {"color": [0], "draws": [loop]}]
        passes = [{"name": "main", "attachments": [{"image": "color", "load": "clear",
                    "store": "store", "clear": [0.2, 0.3, 0.4, 1]}], "subpasses": subs}]
        if a[1] == "nextpass":  # legitimate: pass 1 renders "src" sampling pass 0's "color"
            passes = [dict(passes[0], subpasses=[sub0]), {"name": "second", "attachments": [{"image": "src",
                      "load": "clear", "store": "store"}], "subpasses": [{"color": [0], "draws": [loop]}]}]
        json.dump({"format": "tbdrsim-trace", "version": 1,
                   "images": [{"name": "color", "format": "RGBA8", "width": 64, "height": 64},
                              {"name": "src", "format": "RGBA8", "width": 64, "height": 64}],
                   "meshes": [{"name": "tri", "positions": [-1, -1, 0.5, 1, -1, 0.5, -1, 1, 0.5],
                               "colors": [1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1], "uvs": [0, 0, 1, 0, 0, 1]}],
                   "frames": [{"passes": passes}]},
                  open(out, "w"))
    elif kind == "passes":  # a[0] render passes, each clearing and storing its own image, a[1] instances of a triangle
        n, inst, frames = int(a[0]), int(a[1]), int(a[2]) if len(a) > 2 else 1
        passes = [{"name": "p%d" % i, "attachments": [{"image": "i%d" % i, "load": "clear", "store": "store"}],
                   "subpasses": [{"color": [0], "draws": [{"name": "d", "mesh": "tri", "instance_count": inst,
                                                           "program": {"name": "vertex_color"}}]}]} for i in range(n)]
        json.dump({"format": "tbdrsim-trace", "version": 1,
                   "images": [{"name": "i%d" % i, "format": "RGBA8", "width": 16, "height": 16} for i in range(n)],
                   "meshes": [{"name": "tri", "positions": [-1, -1, 0.5, 1, -1, 0.5, -1, 1, 0.5],
                               "colors": [1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1]}],
                   "frames": [{"passes": passes}] + [{}] * (frames - 1)}, open(out, "w"))
    elif kind == "swapchain":  # the tiny trace's image with "swapchain": a[0]
        d = json.load(open(a[1])); d["images"][0]["swapchain"] = int(a[0]); json.dump(d, open(out, "w"))
    elif kind == "preset_chain":  # out/p1.json .. out/pN.json, each naming the previous as its base
        import os; os.makedirs(out, exist_ok=True)
        for i in range(1, int(a[0]) + 1):
            d = {"name": "p%d" % i, "description": "", "models": {}}
            if i > 1: d["base"] = "p%d.json" % (i - 1)
            json.dump(d, open(os.path.join(out, "p%d.json" % i), "w"))
    elif kind == "preset_base":  # a preset whose base is a[0]
        json.dump({"name": "x", "description": "", "base": a[0], "models": {}}, open(out, "w"))
    elif kind == "measurements":  # a measurement CSV: a[0] the header, a[1] one row a[2] times, then rows a[3:]
        with open(out, "w") as f:
            f.write(a[0] + "\n")
            for _ in range(int(a[2]) if len(a) > 2 else 1): f.write(a[1] + "\n")
            for row in a[3:]: f.write(row + "\n")
    elif kind == "grid_json_rows":
        n = int(a[0]); w("[" + ",".join(['{"dram.bytes_per_cycle": 8}'] * n) + "]")
    else: sys.exit("unknown kind " + kind)

main()
