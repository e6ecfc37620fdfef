"""ctest rdcconv_compute: tools/rdcconv/compute.py: a dispatch with a fake pipeline state becomes a
`captured_compute` pass: groups, local size and SPIR-V cost, the images it reads and writes (the
written one's pixels saved), and its buffers as whole-length BUFFERs named once."""
import struct
import types
import unittest

from fakes import Controller, ResourceId, fake_rd, texture

from rdcconv.vulkan import Converter


def bound(rid, mip=0, layer=0):
    return types.SimpleNamespace(resourceId=ResourceId(rid), firstMip=mip, firstSlice=layer)


def spirv_fadds(n):
    words = [0x07230203, 0x00010000, 0, 100, 0] + [4 << 16 | 129, 1, 2, 3] * n
    return struct.pack("<%dI" % len(words), *words)


class State:
    def GetShaderReflection(self, stage):
        return types.SimpleNamespace(dispatchThreadsDimension=[8, 8, 0], resourceId=ResourceId(50),
                                     rawBytes=spirv_fadds(3))

    def GetReadOnlyResources(self, stage):
        return [types.SimpleNamespace(resources=[bound(7)]), types.SimpleNamespace(resources=[bound(30)])]

    def GetReadWriteResources(self, stage):
        return [types.SimpleNamespace(resources=[bound(8, mip=1)]), types.SimpleNamespace(resources=[bound(30)]),
                types.SimpleNamespace(resources=[bound(31)])]


class ComputeTest(unittest.TestCase):
    def test_dispatch_pass(self):
        ctl = Controller(textures=[texture(7), texture(8, width=4, height=4)])
        ctl.GetPipelineState = State
        ctl.GetBuffers = lambda: [types.SimpleNamespace(resourceId=ResourceId(30), length=256),
                                  types.SimpleNamespace(resourceId=ResourceId(31), length=0)]
        ctl.GetTextureData = lambda rid, sub: bytes(16)
        conv = Converter(fake_rd(), ctl, "/tmp/f.json")
        conv.images = {7: {"format": "VK_FORMAT_R8G8B8A8_UNORM", "usage": 0x4, "tiling": "", "flags": 0, "samples": 1},
                       8: {"format": "VK_FORMAT_R8G8B8A8_UNORM", "usage": 0x8, "tiling": "", "flags": 0, "samples": 1}}
        conv.swapchain_counts = {}
        action = types.SimpleNamespace(dispatchDimension=[4, 2, 1])
        p = conv.dispatch_pass(40, "vkCmdDispatch", action, 2)
        self.assertEqual((p["name"], p["type"], p["groups"], p["local_size"], p["cost"]),
                         ("compute2", "compute", [4, 2, 1], [8, 8, 1], {"alu": 3, "texture_samples": 0}))
        self.assertEqual(p["reads"], [{"image": "unnamed_7"}])
        self.assertEqual(p["writes"], [{"image": "unnamed_8", "mip": 1,
                                        "contents": {"file": "f_captured/compute2_unnamed_8.png", "captured": True}}])
        self.assertEqual((p["buffer_reads"], p["buffer_writes"]), (["buffer30"], ["buffer30"]))
        self.assertEqual(conv.trace_buffers, {30: {"name": "buffer30", "size": 256}})
        self.assertIn("event 40 (vkCmdDispatch): buffer 31 has no bytes; left out", conv.warnings)
        self.assertEqual(conv.stored_images, {8: (1, 0)})
        self.assertEqual(ctl.calls, [("SetFrameEvent", 40)])


if __name__ == "__main__":
    unittest.main()
