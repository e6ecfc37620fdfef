"""ctest rdcconv_meshes: tools/rdcconv/meshes.py: post-vertex-shader indices and strided float4
positions read from fake buffers, non-finite rows, the .bin's little-endian bytes."""
import struct
import types
import unittest

import numpy as np
from fakes import ResourceId, fake_rd

from rdcconv import meshes


class Buffers:
    def __init__(self, data):
        self.data = data

    def GetBufferData(self, rid, offset, size):
        return self.data[int(rid)][offset:offset + size]


def post(**kw):
    base = dict(indexResourceId=ResourceId(0), numIndices=3, indexByteStride=2, indexByteOffset=0,
                vertexResourceId=ResourceId(2), vertexByteOffset=0, vertexByteStride=24)
    base.update(kw)
    return types.SimpleNamespace(**base)


class MeshesTest(unittest.TestCase):
    def test_indices_without_index_buffer_count_up(self):
        self.assertEqual(meshes.instance_indices(None, fake_rd(), post()).tolist(), [0, 1, 2])

    def test_indices_read_from_the_buffer(self):
        ctl = Buffers({1: b"\xff" * 2 + struct.pack("<3H", 2, 0, 65535)})
        p = post(indexResourceId=ResourceId(1), indexByteOffset=2)
        self.assertEqual(meshes.instance_indices(ctl, fake_rd(), p).tolist(), [2, 0, 65535])
        short = Buffers({1: struct.pack("<2H", 1, 2)})
        with self.assertRaises(ValueError):
            meshes.instance_indices(short, fake_rd(), post(indexResourceId=ResourceId(1)))

    def test_positions_follow_the_stride(self):
        rows = [struct.pack("<4f", i, -i, 0.5, 1.0) + b"\0" * 8 for i in range(3)]
        ctl = Buffers({2: b"".join(rows)})
        got = meshes.instance_positions(ctl, post(), 3)
        self.assertEqual(got.dtype, np.float64)
        self.assertEqual(got.tolist(), [[i, -i, 0.5, 1.0] for i in range(3)])
        self.assertEqual(meshes.instance_positions(ctl, post(), 0).shape, (0, 4))

    def test_non_finite_rows(self):
        self.assertEqual(meshes.non_finite_rows(np.array([[0, 1, 2, 1], [np.nan, 0, 0, 1], [np.inf, 0, 0, 1.0]])), 2)

    def test_sidecar_bytes_are_little_endian_and_checked(self):
        self.assertEqual(meshes.sidecar_bytes(np.array([1, 258]), "H"), b"\x01\x00\x02\x01")
        self.assertEqual(meshes.sidecar_bytes(np.array([1.5]), "f"), struct.pack("<f", 1.5))
        with self.assertRaises(ValueError):
            meshes.sidecar_bytes(np.array([65536]), "H")
        with self.assertRaises(ValueError):
            meshes.sidecar_bytes(np.array([-1]), "I")


if __name__ == "__main__":
    unittest.main()
