"""ctest rdcconv_structured: tools/rdcconv/structured.py: RenderDoc's structured data (fake SDObjects)
as plain Python, flag masks to trace names, resource names to trace names."""
import types
import unittest

from fakes import SDBasic, fake_rd

from rdcconv.structured import as_list, bit_names, clean_name, sd


def obj(name, basetype, type_name="", children=(), **basic):
    data = types.SimpleNamespace(basic=types.SimpleNamespace(**basic))
    o = types.SimpleNamespace(name=name, type=types.SimpleNamespace(basetype=basetype, name=type_name), data=data)
    o.NumChildren = lambda: len(children)
    o.GetChild = lambda i: children[i]
    o.AsString = lambda: basic.get("s", "")
    return o


class StructuredTest(unittest.TestCase):
    def test_sd_turns_chunks_into_dicts_lists_and_values(self):
        chunk = obj("vkCreateImage", SDBasic.Chunk, children=[
            obj("Image", SDBasic.Resource, id=42),
            obj("usage", SDBasic.Enum, "VkImageUsageFlags", u=0x14),
            obj("format", SDBasic.Enum, "VkFormat", s="VK_FORMAT_R8G8B8A8_UNORM"),
            obj("extent", SDBasic.Array, children=[obj("", SDBasic.UnsignedInteger, u=640),
                                                   obj("", SDBasic.SignedInteger, i=-1)]),
            obj("depth", SDBasic.Float, d=0.5), obj("on", SDBasic.Boolean, b=1), obj("none", SDBasic.Null)])
        self.assertEqual(sd(chunk, fake_rd()), {"Image": 42, "usage": 0x14, "format": "VK_FORMAT_R8G8B8A8_UNORM",
                                                "extent": [640, -1], "depth": 0.5, "on": True, "none": None})

    def test_as_list(self):
        self.assertEqual(as_list(None), [])
        self.assertEqual(as_list({"a": 1}), [{"a": 1}])
        self.assertEqual(as_list([1, 2]), [1, 2])

    def test_bit_names_warns_about_unnamed_bits(self):
        warnings = []
        self.assertEqual(bit_names(0x5, {0x1: "a", 0x4: "c"}, "stage", warnings, "event 3"), ["a", "c"])
        self.assertEqual(warnings, [])
        self.assertEqual(bit_names(0x12, {0x2: "b"}, "stage", warnings, "event 3"), ["b"])
        self.assertEqual(warnings, ["event 3: stage bits 0x10 have no trace name and were left out"])

    def test_clean_name(self):
        self.assertEqual(clean_name("Swapchain Image 1000!"), "swapchain_image_1000")
        self.assertEqual(clean_name("***"), "unnamed")


if __name__ == "__main__":
    unittest.main()
