"""RenderDoc's structured chunk data as plain Python (sd), and the small value helpers every
converter module uses."""
import re


def sd(obj, rd):
    """An SDObject as Python: structs -> dict, arrays -> list, enums -> their name (flags, whose
    type name ends in Flags/FlagBits, -> int), resources -> int id."""
    bt = obj.type.basetype
    if bt in (rd.SDBasic.Struct, rd.SDBasic.Chunk):
        return {obj.GetChild(i).name: sd(obj.GetChild(i), rd) for i in range(obj.NumChildren())}
    if bt == rd.SDBasic.Array:
        return [sd(obj.GetChild(i), rd) for i in range(obj.NumChildren())]
    if bt == rd.SDBasic.Enum:
        if "Flag" in obj.type.name:
            return int(obj.data.basic.u)
        return obj.AsString()
    if bt == rd.SDBasic.Resource:
        return int(obj.data.basic.id)
    if bt == rd.SDBasic.String:
        return obj.AsString()
    if bt == rd.SDBasic.Float:
        return obj.data.basic.d
    if bt == rd.SDBasic.Boolean:
        return bool(obj.data.basic.b)
    if bt == rd.SDBasic.SignedInteger:
        return int(obj.data.basic.i)
    if bt == rd.SDBasic.UnsignedInteger:
        return int(obj.data.basic.u)
    if bt == rd.SDBasic.Null:
        return None
    if obj.NumChildren():
        return {obj.GetChild(i).name: sd(obj.GetChild(i), rd) for i in range(obj.NumChildren())}
    return None


def as_list(value):
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def bit_names(mask, table, what, warnings, where):
    names = [name for bit, name in table.items() if mask & bit]
    rest = mask & ~sum(table)
    if rest:
        warnings.append(f"{where}: {what} bits 0x{rest:x} have no trace name and were left out")
    return names


def clean_name(text):
    s = re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_").lower()
    return s or "unnamed"


def level_ref(image_name, mip, layer):
    """A reference to one level of an image, as IMAGEREF and ATTACHMENT start: `mip` and `layer`
    written only when not 0 (the trace's defaults)."""
    ref = {"image": image_name}
    if mip:
        ref["mip"] = mip
    if layer:
        ref["layer"] = layer
    return ref
