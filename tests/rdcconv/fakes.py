"""Module-level fakes of RenderDoc's python module (renderdoc) and replay controller for the
rdcconv unit tests: just the names and calls the converter uses, recorded so tests can count them."""
import enum
import os
import sys
import types

TOOLS = os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "tools")
sys.path.insert(0, TOOLS)


class ResourceId(int):
    @staticmethod
    def Null():
        return ResourceId(0)


class SDBasic(enum.IntEnum):
    Chunk, Struct, Array, Null, Buffer, String, Enum, Boolean, Character, Resource, \
        SignedInteger, UnsignedInteger, Float = range(13)


def fake_rd():
    """A stand-in for `import renderdoc as rd`."""
    return types.SimpleNamespace(
        ResourceId=ResourceId, SDBasic=SDBasic,
        Subresource=lambda mip, layer, sample: (mip, layer, sample),
        TextureCategory=types.SimpleNamespace(ShaderRead=0x1, DepthTarget=0x2, SwapBuffer=0x10),
        ShaderStage=types.SimpleNamespace(Vertex=0, Fragment=4, Compute=5),
        FilterMode=enum.IntEnum("FilterMode", "NoFilter Point Linear Cubic Anisotropic", start=0),
        AddressMode=enum.IntEnum("AddressMode", "Wrap Mirror MirrorOnce ClampEdge ClampBorder", start=0),
        Topology=enum.IntEnum("Topology", "Unknown PointList LineList LineStrip LineLoop TriangleList TriangleStrip "
                              "TriangleFan", start=0),
        ActionFlags=types.SimpleNamespace(Indexed=0x1),
    )


def texture(rid, width=4, height=2, mips=1, arraysize=1, ms=1, flags=0):
    return types.SimpleNamespace(resourceId=ResourceId(rid), width=width, height=height, mips=mips,
                                 arraysize=arraysize, msSamp=ms, creationFlags=flags)


class Action:
    def __init__(self, eid, chunks, children=()):
        self.eventId = eid
        self.events = [types.SimpleNamespace(eventId=e, chunkIndex=c) for e, c in chunks]
        self.children = list(children)


class Controller:
    """Replay controller: resources and textures as given; every replay-moving and data-reading call
    is appended to `calls`."""

    def __init__(self, textures=(), names=None, actions=(), chunks=()):
        self.textures = list(textures)
        self.names = names or {}
        self.actions = list(actions)
        self.structured = types.SimpleNamespace(chunks=list(chunks))
        self.calls = []

    def GetResources(self):
        return [types.SimpleNamespace(resourceId=t.resourceId, name=self.names.get(int(t.resourceId), ""))
                for t in self.textures]

    def GetTextures(self):
        return self.textures

    def GetRootActions(self):
        return self.actions

    def GetStructuredFile(self):
        return self.structured

    def SetFrameEvent(self, eid, force):
        self.calls.append(("SetFrameEvent", eid))

    def GetTextureData(self, rid, sub):
        self.calls.append(("GetTextureData", int(rid), sub))
        return bytes([int(rid), sub[0], sub[1], 0])

    def GetBuffers(self):
        return []
