#!/usr/bin/python3
"""Frame sequences and split replays on a real game: three consecutive frames of SuperTux's title
screen (Debian supertux, OpenGL core through GLX) captured in one launch, converted into one trace
(tools/rdc2trace --sequence) whose frames share the window surface and the textures, simulated with
transaction elimination killing blocks across the frames; and one frame converted by split replays
(two workers), and by one rasterizing replay, byte for byte as by default. Needs RenderDoc's Python module, Xvfb and supertux2:
skipped without them unless TBDR_REQUIRE_EXTERNAL is set. argv[1]: the tbdrsim binary."""
import filecmp
import json
import os
import shutil
import sys
import tempfile
import unittest

from external_capture import missing, run

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = os.path.join(ROOT, "tools")
TBDRSIM = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(ROOT, "build", "tbdrsim")
FRAMES = [60, 61, 62]
SUPERTUX = "/usr/games/supertux2"
ARGS = ["--renderer", "opengl", "-g", "480x320", "-w", "--disable-sound", "--disable-music", "--userdir", "user"]


def tree_files(folder):
    out = []
    for base, _, names in os.walk(folder):
        out += [os.path.relpath(os.path.join(base, n), folder) for n in names]
    return sorted(out)


def window_images(trace):
    """The names of the window's images in a converted OpenGL trace: its presented color image and
    whatever a pass attaches beside it (the default framebuffer's depth)."""
    color = {i["name"] for i in trace["images"] if i.get("swapchain")}
    names = set(color)
    for frame in trace["frames"]:
        for p in frame["passes"]:
            attached = {a["image"] for a in p.get("attachments", [])}
            if attached & color:
                names |= attached
    return names


class SequenceTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        why = missing(SUPERTUX)
        if why:
            if os.environ.get("TBDR_REQUIRE_EXTERNAL"):
                raise AssertionError(f"{why} is missing")
            raise unittest.SkipTest(f"{why} is missing")
        cls.dir = tempfile.mkdtemp(prefix="rdc_sequence_")
        os.makedirs(os.path.join(cls.dir, "user"))
        run([os.path.join(TOOLS, "capture"), SUPERTUX, "--frame", ",".join(map(str, FRAMES)), "--timeout", "120",
             "--out", "st_{frame}.rdc", "--"] + ARGS, cls.dir)
        cls.rdcs = [os.path.join(cls.dir, f"st_{f}.rdc") for f in FRAMES]
        # each frame alone, by one process (frame 1's is `one`): what the sequence must add up to
        cls.alone = [os.path.join(cls.dir, f"alone{k}", "one.json") for k in range(len(FRAMES))]
        for rdc, out in zip(cls.rdcs, cls.alone):
            run([os.path.join(TOOLS, "rdc2trace"), rdc, "-o", out], cls.dir,
                dict(os.environ, TBDR_CONVERT_JOBS="1"))
        cls.one = cls.alone[1]

    @classmethod
    def tearDownClass(cls):
        if getattr(cls, "dir", None):
            shutil.rmtree(cls.dir, ignore_errors=True)

    def test_sequence_shares_resources_and_te_kills_across_frames(self):
        out = os.path.join(self.dir, "seq", "seq.json")
        r = run([os.path.join(TOOLS, "rdc2trace"), "--sequence"] + self.rdcs + ["-o", out], self.dir)
        self.assertIn(f"{len(FRAMES)} frames", r.stdout)
        with open(out) as f:
            trace = json.load(f)
        alone = []
        for path in self.alone:
            with open(path) as f:
                alone.append(json.load(f))
        self.assertEqual(len(trace["frames"]), len(FRAMES))
        # Shared, not one set per frame: the textures and the off-screen images are those the frames
        # use, each once (a game's consecutive frames need not use the same ones: an animation may
        # bind a texture in one frame only), the window one image, and each frame's meshes its own.
        textures = [t["name"] for t in trace.get("textures", [])]
        self.assertEqual(len(textures), len(set(textures)))
        self.assertEqual(set(textures), {t["name"] for one in alone for t in one.get("textures", [])})
        # The window's depth image is the window's too: RenderDoc names it anew in each capture, and the
        # sequence keeps one (as it keeps one window color image).
        offscreen = [i["name"] for i in trace["images"] if i["name"] not in window_images(trace)]
        self.assertEqual(len(offscreen), len(set(offscreen)))
        self.assertEqual(set(offscreen), {i["name"] for one in alone for i in one["images"]
                                          if i["name"] not in window_images(one)})
        window = [i["name"] for i in trace["images"] if i.get("swapchain")]
        self.assertEqual(len(window), 1)
        alone_depths = [window_images(one) - {i["name"] for i in one["images"] if i.get("swapchain")} for one in alone]
        self.assertEqual(len(window_images(trace) - set(window)), 1 if any(alone_depths) else 0)
        for frame in trace["frames"]:
            attached = {a["image"] for p in frame["passes"] for a in p.get("attachments", [])}
            self.assertIn(window[0], attached)
        self.assertEqual(len(trace["meshes"]), sum(len(one["meshes"]) for one in alone))
        report_path = os.path.join(self.dir, "seq_run.json")
        run([TBDRSIM, "run", out, "--preset", "mali-g710", "--json", report_path], self.dir)
        with open(report_path) as f:
            report = json.load(f)
        kills = [sum(a.get("te_blocks_killed", 0) for p in fr["passes"] for a in p.get("attachments", []))
                 for fr in report["frames"]]
        print(f"SuperTux frames {FRAMES}: TE blocks killed per frame {kills}")
        self.assertEqual(kills[0], 0)  # nothing to compare the first frame's blocks with
        self.assertTrue(all(k > 0 for k in kills[1:]), kills)
        self.assertEqual(len(report["frames"]), len(FRAMES))

    def test_replay_without_rasterization_equals_rasterizing_one(self):
        """The converter replays under Mesa's LP_NO_RAST and reads pixels (attachments, textures that
        SaveTexture decodes by drawing) from a second, rasterizing replay: its files are those of one
        rasterizing replay (TBDR_CONVERT_RASTER=all), byte for byte."""
        out = os.path.join(self.dir, "raster", "one.json")
        run([os.path.join(TOOLS, "rdc2trace"), self.rdcs[1], "-o", out], self.dir,
            dict(os.environ, TBDR_CONVERT_JOBS="1", TBDR_CONVERT_RASTER="all"))
        one, raster = os.path.dirname(self.one), os.path.dirname(out)
        self.assertEqual(tree_files(one), tree_files(raster))
        for rel in tree_files(one):
            self.assertTrue(filecmp.cmp(os.path.join(one, rel), os.path.join(raster, rel), shallow=False), rel)

    def test_split_replays_equal_one_process(self):
        out = os.path.join(self.dir, "split", "one.json")  # the same name: the same file names inside
        env = dict(os.environ, TBDR_CONVERT_JOBS="2", TBDR_CONVERT_SPLIT="always", TBDR_DEBUG="1")
        r = run([os.path.join(TOOLS, "rdc2trace"), self.rdcs[1], "-o", out], self.dir, env)
        self.assertRegex(r.stderr, r"split over 2 workers: [1-9]\d* draws from them, 0 converted by the parent")
        one, split = os.path.dirname(self.one), os.path.dirname(out)
        self.assertEqual(tree_files(one), tree_files(split))
        for rel in tree_files(one):
            self.assertTrue(filecmp.cmp(os.path.join(one, rel), os.path.join(split, rel), shallow=False), rel)


if __name__ == "__main__":
    unittest.main(verbosity=2)
