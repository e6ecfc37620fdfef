"""Trace writing: the trace JSON (private keys dropped), and every output (JSON, .bin, PNGs)
staged beside the target and renamed into place, so that either all are written or none."""
import json
import os
import shutil

from .common import ToolError, group_warnings, note, note_temp, private_temp_folder


class TraceWriter:
    """The trace JSON of a converted frame."""

    def trace(self, passes):
        for p in passes:
            if "type" in p:
                continue
            for a in p["attachments"]:
                for key in ("_image_id", "_mip", "_layer"):
                    del a[key]
            for key in ("_subpass", "_begin", "_last_draw", "_end"):
                del p[key]
        images = []
        for image in self.trace_images.values():
            image = dict(image)
            del image["_vk_format"]
            image.pop("_swapchain_id", None)
            images.append(image)
        out = {"format": "tbdrsim-trace", "version": 1, "name": self.stem, "warnings": group_warnings(self.warnings),
               "images": images}
        if self.trace_textures:
            out["textures"] = list(self.trace_textures.values())
        if self.trace_buffers:
            out["buffers"] = list(self.trace_buffers.values())
        out.update({"meshes": self.meshes, "frames": [{"passes": passes}]})
        return out


def write_outputs(conv, trace, out_json):
    """Everything is staged in a private folder beside the outputs, then renamed into place; the output
    folder is made only now, when there is something to write."""
    out_dir = os.path.dirname(os.path.abspath(out_json))
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as e:
        raise ToolError(f"{out_dir}: cannot create the output folder ({e.strerror})")
    staging = private_temp_folder(".rdc2trace", out_dir)
    note_temp(staging)
    note(f"{out_json}: writing the trace")
    try:
        stem = conv.stem
        os.makedirs(os.path.join(staging, stem + "_captured"))
        for rel, png in conv.files.items():
            with open(os.path.join(staging, rel), "wb") as f:
                f.write(png.result())
        for rel, path in conv.texture_files.items():
            shutil.copyfile(path, os.path.join(staging, rel))
        with open(os.path.join(staging, stem + ".bin"), "wb") as f:
            f.write(conv.bin)
        with open(os.path.join(staging, stem + ".json"), "w") as f:
            json.dump(trace, f, indent=1)
            f.write("\n")
        captured_dir = os.path.join(out_dir, stem + "_captured")
        if os.path.isdir(captured_dir):
            shutil.rmtree(captured_dir)
        os.replace(os.path.join(staging, stem + "_captured"), captured_dir)
        os.replace(os.path.join(staging, stem + ".bin"), os.path.join(out_dir, stem + ".bin"))
        os.replace(os.path.join(staging, stem + ".json"), os.path.abspath(out_json))
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def summary(out_json, trace):
    passes = [p for frame in trace["frames"] for p in frame["passes"]]
    draws = sum(len(s["draws"]) for p in passes for s in p.get("subpasses", []))
    render = sum(1 for p in passes if "type" not in p)
    frames = f"{len(trace['frames'])} frames, " if len(trace["frames"]) > 1 else ""
    return (f"{out_json}: {frames}{render} render passes, {len(passes) - render} other passes, {draws} draws, "
            f"{len(trace['warnings'])} warnings")
