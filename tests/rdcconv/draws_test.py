"""ctest rdcconv_draws: tools/rdcconv/draws.py: a draw's program binds the images of other passes the
fragment shader reads (not its own attachments; not the bindings of the bound descriptor sets its
reflection does not use; at most 3, the rest warned about), and the .bin sidecar keeps every array
4-byte aligned; line and point topologies are carried with their width (a loop is left out, warned),
points with the vertex shader's PointSize."""
import types
import unittest
from unittest import mock

import numpy as np
from fakes import Controller, ResourceId, fake_rd, texture

from rdcconv.draws import primitive_size, trace_topology
from rdcconv.vulkan import Converter


def bound(rid, mip=0, layer=0):
    return types.SimpleNamespace(resourceId=ResourceId(rid), firstMip=mip, firstSlice=layer)


def array(binding, resources):
    """A BoundResourceArray of descriptor set 0."""
    return types.SimpleNamespace(bindPoint=types.SimpleNamespace(bindset=0, bind=binding), resources=resources)


def fragment_shader(used, unused=()):
    """A VKPipe.Shader whose reflection declares set 0's bindings `used` (read) and `unused`."""
    declared = [(b, True) for b in used] + [(b, False) for b in unused]
    return types.SimpleNamespace(
        reflection=types.SimpleNamespace(readOnlyResources=[types.SimpleNamespace(bindPoint=i)
                                                            for i in range(len(declared))]),
        bindpointMapping=types.SimpleNamespace(readOnlyResources=[
            types.SimpleNamespace(bindset=0, bind=b, used=u) for b, u in declared]))


def converter(read_only, fragment=None):
    ctl = Controller(textures=[texture(i) for i in range(1, 7)])
    ctl.GetPipelineState = lambda: types.SimpleNamespace(GetReadOnlyResources=lambda stage: read_only)
    fragment = fragment or fragment_shader([a.bindPoint.bind for a in read_only])
    # set 0's binding 0 holds a combined image sampler: linear minification, clamped
    sampler = types.SimpleNamespace(filter=types.SimpleNamespace(minify=2, magnify=1), addressU=3)
    sets = [types.SimpleNamespace(bindings=[types.SimpleNamespace(binds=[sampler])])]
    ctl.GetVulkanPipelineState = lambda: types.SimpleNamespace(fragmentShader=fragment,
                                                              graphics=types.SimpleNamespace(descriptorSets=sets))
    conv = Converter(fake_rd(), ctl, "/tmp/f.json")
    conv.images = {i: {} for i in range(1, 7)}
    conv.trace_images = {i: {"name": f"img{i}"} for i in range(1, 7)}
    return conv


class DrawsTest(unittest.TestCase):
    def test_program_binds_other_passes_images(self):
        arrays = [array(0, [bound(1)]), array(1, [bound(2, mip=2)]), array(2, [bound(3, layer=1), bound(99)])]
        conv = converter(arrays)
        p = {"attachments": [{"_image_id": 1}]}
        self.assertEqual(conv.program(p, "event 5"), {"name": "captured", "bindings": {
            "image0": {"image": "img2", "mip": 2}, "image1": {"image": "img3", "layer": 1}}})
        self.assertEqual(conv.warnings, [])

    def test_program_counts_three_images_at_most(self):
        conv = converter([array(0, [bound(i) for i in range(2, 7)])])
        program = conv.program({"attachments": []}, "event 5")
        self.assertEqual(sorted(program["bindings"]), ["image0", "image1", "image2"])
        self.assertEqual(conv.warnings, ["event 5: more than 3 sampled images; the reads of the rest are not counted"])

    def test_program_binds_only_what_the_shader_reads(self):
        # Bindings 1 and 2 are in the bound descriptor set; the shader declares 2 but does not use it
        # and does not declare 3 at all: only binding 0's image is sampled.
        arrays = [array(0, [bound(2)]), array(1, [bound(3)]), array(2, [bound(4)]), array(3, [bound(5)])]
        conv = converter(arrays, fragment_shader(used=[0], unused=[2]))
        self.assertEqual(conv.program({"attachments": []}, "event 5"),
                         {"name": "captured", "bindings": {"image0": {"image": "img2"}}})
        conv = converter(arrays, types.SimpleNamespace(reflection=None))
        self.assertEqual(conv.program({"attachments": []}, "event 5"), {"name": "captured"})

    def test_program_marks_the_bindings_sampled_at_the_uvs(self):
        # coordinate_plan carried binding 0's coordinates (the mesh's uvs); binding 1 samples elsewhere
        arrays = [array(0, [bound(2)]), array(1, [bound(3)])]
        conv = converter(arrays)
        self.assertEqual(conv.program({"attachments": []}, "event 5", {(0, 0)}, {(0, 1)}), {"name": "captured", "bindings": {
            "image0": {"image": "img2", "coordinates": "uv", "filter": "bilinear", "address": "clamp_to_edge"},
            "image1": {"image": "img3"}}})
        self.assertEqual(conv.warnings, ["event 5: a sampled image's coordinates come from another vertex output "
                                         "than the one carried, or from where the converter does not follow: its "
                                         "reads stay at the pixel's screen position (a stand-in)"])

    def test_sidecar_aligns_each_array(self):
        conv = converter([])
        first = conv.sidecar(np.array([1, 2, 3]), "H")
        second = conv.sidecar(np.array([[0.5, 1.0]]), "f")
        self.assertEqual(first, {"file": "f.bin", "offset": 0, "count": 3})
        self.assertEqual(second, {"file": "f.bin", "offset": 8, "count": 2})
        self.assertEqual(bytes(conv.bin[6:8]), b"\0\0")


class TopologyTest(unittest.TestCase):
    def test_trace_topology_maps_lines_and_points(self):
        rd = fake_rd()
        self.assertEqual([trace_topology(rd, t) for t in (rd.Topology.LineList, rd.Topology.LineStrip,
                                                           rd.Topology.PointList, rd.Topology.TriangleFan)],
                         ["lines", "line_strip", "points", "triangle_fan"])
        self.assertIsNone(trace_topology(rd, rd.Topology.LineLoop))

    def test_primitive_size_is_carried_in_range(self):
        warnings = []
        self.assertEqual(primitive_size("lines", 3.0, 1.0, "event 2", warnings.append), {"line_width": 3.0})
        self.assertEqual(primitive_size("line_strip", 1.0, 1.0, "event 2", warnings.append), {})
        self.assertEqual(primitive_size("points", 7.0, 4.0, "event 2", warnings.append), {"point_size": 4.0})
        self.assertEqual(primitive_size("triangle_list", 5.0, 6.0, "event 2", warnings.append), {})
        self.assertEqual(warnings, [])
        self.assertEqual(primitive_size("lines", 300.0, 1.0, "event 3", warnings.append), {"line_width": 255.0})
        self.assertEqual(primitive_size("points", 1.0, 0.5, "event 4", warnings.append), {})
        self.assertEqual(warnings, ["event 3: line_width 300 is outside 1..255; carried as 255",
                                    "event 4: point_size 0.5 is outside 1..255; carried as 1"])

    def draw(self, topology, line_width, point_sizes=None):
        """Converter.add_draw of one 4-vertex, non-indexed draw of `topology` through the fakes (the
        vertex shader writing `point_sizes`, or no PointSize when None): the trace's mesh and draw, or
        None, and the warnings."""
        conv = converter([])
        conv.point_size_offset = lambda: None if point_sizes is None else 16
        sizes = np.array(point_sizes or [1.0] * 4, float).reshape(4, 1)
        viewport = types.SimpleNamespace(x=0, y=0, width=64, height=64, minDepth=0, maxDepth=1)
        pipe = types.SimpleNamespace(
            inputAssembly=types.SimpleNamespace(topology=topology), rasterizer=types.SimpleNamespace(lineWidth=line_width),
            viewportScissor=types.SimpleNamespace(viewportScissors=[types.SimpleNamespace(
                vp=viewport, scissor=types.SimpleNamespace(enabled=False))]))
        conv.ctl.GetVulkanPipelineState = lambda: pipe
        conv.replay_to = lambda eid: None
        post = types.SimpleNamespace(format=types.SimpleNamespace(compCount=4, compByteWidth=4),
                                     indexResourceId=ResourceId(0), numIndices=0)
        conv.post_vs_data = lambda eid, inst, where: post
        conv.coordinate_plan = lambda where: None
        conv.draw_state = lambda pipe, p, flip, where: ({}, {})
        conv.program = lambda p, where: {"name": "captured"}
        p = {"_subpass": 0, "subpasses": [{"draws": []}]}
        positions = np.array([[0, 0, 0.5, 1], [0.5, 0, 0.5, 1], [0, 0.5, 0.5, 1], [0.5, 0.5, 0.5, 1]], float)
        with mock.patch("rdcconv.meshes.instance_indices", return_value=np.arange(4)), \
                mock.patch("rdcconv.meshes.instance_positions", return_value=positions), \
                mock.patch("rdcconv.meshes.instance_floats", return_value=sizes):
            conv.add_draw(p, 7, types.SimpleNamespace(numInstances=1, flags=0))
        draws = p["subpasses"][0]["draws"]
        return (conv.meshes[-1], draws[-1]) if draws else None, conv.warnings

    def test_add_draw_carries_lines_and_points(self):
        rd = fake_rd()
        (mesh, draw), warnings = self.draw(rd.Topology.LineList, 3.0)
        self.assertEqual((mesh["topology"], draw["line_width"], warnings), ("lines", 3.0, []))
        (mesh, draw), warnings = self.draw(rd.Topology.LineStrip, 1.0)
        self.assertEqual((mesh["topology"], "line_width" in draw, warnings), ("line_strip", False, []))
        (mesh, draw), warnings = self.draw(rd.Topology.PointList, 1.0)
        self.assertEqual((mesh["topology"], "point_size" in draw), ("points", False))
        self.assertEqual(warnings, ["event 7: the vertex shader writes no point size; points carried 1 pixel wide"])
        (mesh, draw), warnings = self.draw(rd.Topology.PointList, 1.0, [6.0] * 4)
        self.assertEqual((draw["point_size"], warnings), (6.0, []))
        (mesh, draw), warnings = self.draw(rd.Topology.PointList, 1.0, [2.0, 5.0, 2.0, 2.0])
        self.assertEqual((draw["point_size"], warnings),
                         (2.0, ["event 7: points of 2 sizes (2 to 5 pixels) carried at 2, the commonest"]))
        self.assertEqual(self.draw(rd.Topology.LineLoop, 1.0),
                         (None, ["event 7: topology LineLoop is not supported; draw left out"]))


if __name__ == "__main__":
    unittest.main()
