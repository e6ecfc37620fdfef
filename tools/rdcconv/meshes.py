"""Post-vertex-shader meshes for rdc2trace: an instance's indices, clip-space positions and other
outputs (RenderDoc's GetPostVSData) as numpy arrays, and the little-endian bytes of the trace's .bin."""
import numpy as np

INDEX_TYPES = {1: "<u1", 2: "<u2", 4: "<u4"}
SIDECAR_TYPES = {"f": "<f4", "H": "<u2", "I": "<u4"}


def instance_indices(ctl, rd, post):
    """The instance's indices (int64, baseVertex not added), or 0 .. numIndices - 1 when the draw
    has no index buffer."""
    if post.indexResourceId == rd.ResourceId.Null() or not post.numIndices:
        return np.arange(post.numIndices, dtype=np.int64)
    size = post.numIndices * post.indexByteStride
    raw = ctl.GetBufferData(post.indexResourceId, post.indexByteOffset, size)
    if len(raw) < size:
        raise ValueError(f"index buffer holds {len(raw)} of {size} B")
    return np.frombuffer(raw, INDEX_TYPES[post.indexByteStride], post.numIndices).astype(np.int64)


def instance_positions(ctl, post, count):
    """Vertices 0 .. count - 1 of the instance's float4 output positions, float64 (count, 4): the
    float32 values exactly, so arithmetic on them rounds as Python floats do."""
    return instance_floats(ctl, post, count, 0, 4)


def instance_floats(ctl, post, count, offset, components):
    """Vertices 0 .. count - 1 of the float output `components` wide at byte `offset` of each
    post-vertex-shader vertex, float64 (count, components)."""
    if count <= 0:
        return np.zeros((0, components))
    stride, size = post.vertexByteStride, components * 4
    if offset + size > stride:
        raise ValueError(f"output at byte {offset} is beyond the {stride} B vertex")
    need = (count - 1) * stride + offset + size
    data = ctl.GetBufferData(post.vertexResourceId, post.vertexByteOffset, need)
    if len(data) < need:
        raise ValueError(f"vertex buffer holds {len(data)} of {need} B")
    return np.ndarray((count, components), "<f4", buffer=data, offset=offset, strides=(stride, 4)).astype(np.float64)


def non_finite_rows(positions):
    """How many vertices have a NaN or infinite component."""
    return int(np.count_nonzero(~np.isfinite(positions).all(axis=1)))


def sidecar_bytes(values, code):
    """`values` (a numpy array, any shape) as the sidecar's `code` ("f", "H", "I"); an index out of
    the type's range is an error, never wrapped."""
    kind = SIDECAR_TYPES[code]
    if code != "f" and values.size and (values.min() < 0 or values.max() > np.iinfo(kind).max):
        raise ValueError(f"index {int(values.min()) if values.min() < 0 else int(values.max())} out of range")
    return values.astype(kind).tobytes()
