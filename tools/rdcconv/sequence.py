"""Frame sequences: captures of consecutive frames of one program run (tools/capture --frame 2,3,...)
converted into one trace whose frames share its images, textures, buffers and meshes' .bin."""
import re

from .common import ToolError, group_warnings

# What the frames of a sequence share: RenderDoc names a resource by the id it had in the captured
# process, the same in every capture of one run, so one id is one trace resource whichever frame
# meets it first (a texture is read once; an image one frame renders and the next samples is an
# `image` binding there, as in the program).
SHARED = ("trace_images", "trace_textures", "trace_buffers", "material", "meshes", "bin", "files",
          "texture_files")


def share_resources(conv, first):
    """`conv`, the converter of a later frame, adds to the resources and files of `first`'s."""
    for name in SHARED:
        setattr(conv, name, getattr(first, name))


def frame_swapchain_images(conv, passes):
    """{swapchain id: the swapchain image id} that the frame's render passes draw into."""
    drawn = {}
    for p in passes:
        if "type" in p:
            continue
        for a in p["attachments"]:
            image = conv.trace_images.get(a["_image_id"], {})
            if "_swapchain_id" in image:
                drawn.setdefault(image["_swapchain_id"], a["_image_id"])
    return drawn


def rotation_warnings(order, drawn_by_frame):
    """The simulator keeps one set of TE signatures per swapchain image and uses set K mod N in frame
    K (traces/README.md "Frame sequences"): a capture whose frames draw into the swapchain's images
    in another order than one after the other is said so (its TE figures pair other frames)."""
    out = []
    for swapchain, images in order.items():
        seen = [images.index(d[swapchain]) for d in drawn_by_frame if d.get(swapchain) in images]
        n = len(images)
        if len(seen) > 1 and any((seen[k] - seen[0]) % n != k % n for k in range(len(seen))):
            out.append(f"swapchain {swapchain}: the frames draw into its images in the order "
                       f"{', '.join(str(i) for i in seen)}, not one after the other; transaction elimination "
                       "pairs each frame with the one N frames before as the simulator rotates them")
    return out


def merge_swapchains(conv, frames):
    """Every swapchain's images become one trace image (the first one's name, `swapchain` N):
    the simulator rotates its N images itself. OpenGL's window surface, which RenderDoc names anew
    in every capture (its color and its depth image), becomes one image likewise. Returns (the
    swapchains' image ids in order, {merged image name: the name it goes by})."""
    order = {}
    for image_id, image in conv.trace_images.items():
        if "_swapchain_id" in image:
            order.setdefault(image["_swapchain_id"], []).append(image_id)
    for swapchain in order:  # in the order vkGetSwapchainImagesKHR listed them (the image index)
        order[swapchain] = [i for i in conv.images if conv.images[i].get("swapchain_id") == swapchain
                            and i in conv.trace_images] or order[swapchain]
    renamed = {}
    for swapchain, ids in order.items():
        keep = conv.trace_images[min(ids)]["name"]
        for image_id in ids:
            if conv.trace_images[image_id]["name"] != keep:
                renamed[conv.trace_images.pop(image_id)["name"]] = keep
    for frame in frames:
        _rename_images(frame["passes"], renamed)
    return order, renamed


def _rename_images(value, renamed):
    if isinstance(value, dict):
        for key, v in value.items():
            if key == "image" and isinstance(v, str):
                value[key] = renamed.get(v, v)
            else:
                _rename_images(v, renamed)
    elif isinstance(value, list):
        for v in value:
            _rename_images(v, renamed)


def sequence_warnings(per_frame, renamed):
    """Each frame's warnings (grouped by kind; a merged image under the name it goes by), a line met
    in several frames once: "frames 0, 1, 2: what" (in first-seen order)."""
    frames_of, order = {}, []
    for k, messages in enumerate(per_frame):
        for line in group_warnings(messages):
            for old, new in renamed.items():
                line = re.sub(rf"\b{re.escape(old)}\b", new, line)
            if line not in frames_of:
                frames_of[line] = []
                order.append(line)
            frames_of[line].append(k)
    out = []
    for line in order:
        ks = frames_of[line]
        label = "frame" if len(ks) == 1 else "frames"
        out.append(f"{label} {', '.join(str(k) for k in ks)}: {line}")
    return out


def convert_sequence(convert_frame, rdcs, convs):
    """Converts the captures `rdcs` (consecutive frames, in order) into one trace: (the last frame's
    converter, holding every file, and the trace); `convs` gets every converter, the first holding
    the shared resources (the caller removes their folders on every exit). convert_frame(rdc, prepare, final,
    finish) replays one capture as cli.convert_one does: prepare(conv) before it converts, its final
    images saved when `final`, and finish(conv, passes) what it returns beside the converter."""
    if len(rdcs) < 2:
        raise ToolError("--sequence needs at least two captures")
    frames, warnings, drawn = [], [], []

    def prepare(k):
        def tag(conv):
            conv.frame_tag = f"frame{k}_"
            if convs:
                share_resources(conv, convs[0])
            convs.append(conv)
        return tag

    def finish(conv, passes):
        drawn.append(frame_swapchain_images(conv, passes))
        warnings.append(list(conv.warnings))
        conv.warnings = []
        frames.append(conv.trace(passes)["frames"][0])

    for k, rdc in enumerate(rdcs):
        convert_frame(rdc, prepare(k), k == len(rdcs) - 1, finish)
    last = convs[-1]
    order, renamed = merge_swapchains(last, frames)
    trace = last.trace([])
    trace["frames"] = frames
    trace["warnings"] = sequence_warnings(warnings, renamed) + rotation_warnings(order, drawn)
    return last, trace
