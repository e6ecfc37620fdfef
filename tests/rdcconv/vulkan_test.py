"""ctest rdcconv_vulkan: tools/rdcconv/vulkan.py on structured data as RenderDoc gives it (dicts): trace
IMAGEs from vkCreateImage / swapchain create info, and vkCmdPipelineBarrier as a `barrier` pass (one
layout transition per level and layer, unknown layouts and stage bits warned about)."""
import unittest

from fakes import Controller, fake_rd, texture

from rdcconv.common import ToolError
from rdcconv.vulkan import Converter


def converter():
    ctl = Controller(textures=[texture(7, width=64, height=32, mips=2, arraysize=2), texture(8, 640, 480)],
                     names={7: "Shadow Map"})
    conv = Converter(fake_rd(), ctl, "/tmp/f.json")
    conv.images = {7: {"format": "VK_FORMAT_D32_SFLOAT", "usage": 0x20 | 0x4, "tiling": "VK_IMAGE_TILING_OPTIMAL",
                       "flags": 0x8, "samples": 1},
                   8: {"swapchain": {"imageFormat": "VK_FORMAT_B8G8R8A8_SRGB", "imageUsage": 0x10, "NumImages": 3},
                       "swapchain_id": 99}}
    conv.swapchain_counts = {99: 3}
    return conv


class VulkanTest(unittest.TestCase):
    def test_trace_image(self):
        conv = converter()
        self.assertEqual(conv.trace_image(7, "here"), {
            "name": "shadow_map_7", "format": "D32F", "width": 64, "height": 32, "mip_levels": 2, "array_layers": 2,
            "usage": ["depth_stencil_attachment", "sampled"],
            "mutable_format": True, "_vk_format": "VK_FORMAT_D32_SFLOAT"})
        swap = conv.trace_image(8, "here")
        self.assertEqual((swap["name"], swap["format"], swap["swapchain"]), ("unnamed_8", "BGRA8", 3))
        with self.assertRaisesRegex(ToolError, "^here: image 5 is not in the capture's resources"):
            conv.trace_image(5, "here")

    def test_formats_the_trace_has_are_carried_as_themselves(self):
        # RGB8 (3 B a pixel) and B10G11R11_UFLOAT (4 B) are trace formats: no RGBA8 stand-in, no warning.
        conv = converter()
        for vk_format, fmt in (("VK_FORMAT_R8G8B8_UNORM", "RGB8"),
                               ("VK_FORMAT_B10G11R11_UFLOAT_PACK32", "B10G11R11_UFLOAT")):
            conv.trace_images, conv.warnings = {}, []
            conv.images[8] = {"format": vk_format, "usage": 0x10, "tiling": "VK_IMAGE_TILING_OPTIMAL", "flags": 0,
                              "samples": 1}
            self.assertEqual(conv.trace_image(8, "here")["format"], fmt)
            self.assertEqual(conv.warnings, [])
        conv.trace_images, conv.images[8]["format"] = {}, "VK_FORMAT_R4G4B4A4_UNORM_PACK16"
        self.assertEqual(conv.trace_image(8, "here")["format"], "RGBA8")
        self.assertEqual(conv.warnings, ["image unnamed_8: format VK_FORMAT_R4G4B4A4_UNORM_PACK16 has no trace "
                                         "equivalent; carried as RGBA8"])

    def test_barrier_pass_expands_levels_and_layers(self):
        conv = converter()
        chunk = {"srcStageMask": 0x400, "destStageMask": 0x80 | 0x40000000,
                 "pImageMemoryBarriers": [{
                     "image": 7, "srcAccessMask": 0x100, "dstAccessMask": 0x20,
                     "oldLayout": "VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL",
                     "newLayout": "VK_IMAGE_LAYOUT_SOMETHING_NEW",
                     "subresourceRange": {"baseMipLevel": 1, "levelCount": 0xFFFFFFFF,
                                          "baseArrayLayer": 0, "layerCount": 0xFFFFFFFF}}]}
        p = conv.barrier_pass(chunk, 12, 3)
        self.assertEqual((p["name"], p["type"], p["src_stages"], p["dst_stages"]),
                         ("barrier3", "barrier", ["color_attachment_output"], ["fragment_shader"]))
        self.assertEqual(p["dst_access"], ["shader_read"])
        self.assertEqual(p["images"], [
            {"image": "shadow_map_7", "mip": 1, "old_layout": "depth_stencil_attachment", "new_layout": "general"},
            {"image": "shadow_map_7", "mip": 1, "layer": 1, "old_layout": "depth_stencil_attachment",
             "new_layout": "general"}])
        self.assertIn("event 12 (vkCmdPipelineBarrier): layout VK_IMAGE_LAYOUT_SOMETHING_NEW carried as general",
                      conv.warnings)
        self.assertTrue(any("stage bits 0x40000000" in w for w in conv.warnings))


if __name__ == "__main__":
    unittest.main()
