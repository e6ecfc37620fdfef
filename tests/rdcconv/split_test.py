"""ctest rdcconv_split: tools/rdcconv/split.py: draws converted by workers (every Nth draw each) and
applied by the parent in event order give the trace, the .bin and the PNGs of one process byte for
byte; a worker that saw other trace images than the parent leaves the draw to the parent."""
import json
import pickle
import types
import unittest

import numpy as np

from fakes import fake_rd

from rdcconv.draws import Draws
from rdcconv import split
from rdcconv.split import Done, Recorder, SplitDraws, apply_draw, record_draw
from rdcconv.trace_writer import TraceWriter

DRAWS = list(range(10, 22))


class Pipeline:
    def __init__(self, ctl):
        self.ctl = ctl

    def GetReadOnlyResources(self, stage):
        rid = 100 + self.ctl.event % 3  # resource 102 is a render target of the frame
        return [types.SimpleNamespace(resources=[types.SimpleNamespace(resourceId=rid)])]


class Controller:
    def __init__(self):
        self.event, self.replays = None, 0

    def SetFrameEvent(self, eid, force):
        self.event, self.replays = eid, self.replays + 1

    def GetPipelineState(self):
        return Pipeline(self)


class FrameConverter(SplitDraws, Draws, TraceWriter):
    """A frame of one pass whose draws warn, write sidecars and sample material textures (the first
    draw that samples one reads it) or the frame's render target (an `image` binding)."""

    def __init__(self):
        self.rd, self.ctl, self.stem = fake_rd(), Controller(), "f"
        self.warnings, self.meshes, self.bin, self.files, self.texture_files = [], [], bytearray(), {}, {}
        self.trace_images = {102: {"name": "target_102", "format": "RGBA8", "_vk_format": ""}}
        self.trace_textures, self.trace_buffers, self.material, self.snapshots = {}, {}, {}, {}
        self.at_event, self.texture_reads = None, []

    def replay_to(self, eid):
        if eid != self.at_event:
            self.ctl.SetFrameEvent(eid, True)
            self.at_event = eid

    def warn(self, message):
        if message not in self.warnings:
            self.warnings.append(message)

    def material_texture(self, image_id, where):
        if image_id in self.material:
            return self.material[image_id]
        self.texture_reads.append(image_id)
        self.warn(f"{where}: texture {image_id} carried as RGBA8")
        name = None if image_id == 101 else f"texture_{image_id}"
        self.material[image_id] = name
        if name is not None:
            rel = f"f_captured/texture_{image_id}.png"
            self.files[rel] = Done(bytes([image_id]) * 8)
            self.trace_textures[image_id] = {"name": name, "file": rel, "format": "RGBA8"}
        return name

    def add_draw(self, p, eid, action):
        self.replay_to(eid)
        rid = 100 + self.ctl.event % 3
        if eid % 5 == 0:
            self.warn(f"event {eid}: draw without vertices left out")
            return
        self.warn("logic op is not carried")
        binding = {"image": self.trace_images[rid]["name"]} if rid in self.trace_images else \
            {"texture": self.material_texture(rid, f"event {eid}")}
        mesh = {"name": f"draw_event_{eid}", "positions": self.sidecar(np.arange(eid % 7 + 1, dtype=np.float64), "f")}
        if eid % 2:
            mesh["indices"] = self.sidecar(np.arange(3, dtype=np.int64), "H")
        self.meshes.append(mesh)
        p["subpasses"][0]["draws"].append({"name": f"event_{eid}", "mesh": mesh["name"], "binding": binding})
        p["_last_draw"] = eid

    def frame(self):
        p = {"name": "pass0", "attachments": [], "_subpass": 0, "_begin": 1, "_last_draw": None, "_end": 30,
             "subpasses": [{"draws": []}]}
        for eid in DRAWS:
            self.draw_event(p, eid, None)
        return p

    def outputs(self, p):
        files = {rel: png.result() for rel, png in self.files.items()}
        return json.dumps(self.trace([p]), sort_keys=True), bytes(self.bin), files


class Sent(dict):
    """A worker's Sender: draw records by event, other messages in order."""

    def __init__(self):
        super().__init__()
        self.messages = []

    def send(self, *message):
        self.messages.append(message)


class FakeWorkers:
    """Workers.record over records made in this process and pickled, as a worker's travel."""

    def __init__(self, records):
        self.records = pickle.loads(pickle.dumps(records))
        self.applied = self.here = 0

    def record(self, eid):
        return self.records.pop(eid, None)


def worker_records(count, parent_images=None):
    records = {}
    for index in range(count):
        worker = FrameConverter()
        if parent_images is not None:
            worker.trace_images = dict(parent_images)
        sent = Sent()
        Recorder(worker, set(DRAWS[index::count]), sent)
        worker.frame()
        records.update(sent)
    return records


class SplitTest(unittest.TestCase):
    def test_split_equals_one_process(self):
        one = FrameConverter()
        expected = one.outputs(one.frame())
        self.assertEqual(one.texture_reads, [100, 101])
        for count in (2, 3, 5):
            parent = FrameConverter()
            parent.workers = FakeWorkers(worker_records(count))
            self.assertEqual(parent.outputs(parent.frame()), expected, f"{count} workers")
            self.assertEqual(parent.ctl.replays, 0)  # every draw came from a worker
            self.assertEqual((parent.workers.applied, parent.workers.here), (len(DRAWS), 0))
            self.assertEqual(parent.texture_reads, [])

    def test_a_worker_that_saw_other_images_leaves_the_draw_here(self):
        one = FrameConverter()
        expected = one.outputs(one.frame())
        records = worker_records(2, parent_images={})  # the workers never met image 102
        parent = FrameConverter()
        parent.workers = FakeWorkers(records)
        self.assertEqual(parent.outputs(parent.frame()), expected)
        sampling_target = [eid for eid in DRAWS if eid % 3 == 2]
        self.assertEqual(parent.workers.here, len(sampling_target))
        self.assertEqual(parent.ctl.replays, len(sampling_target))

    def test_record_keeps_the_order_of_effects(self):
        conv = FrameConverter()
        Recorder(conv, {12}, Sent())
        p = {"name": "pass0", "attachments": [], "_subpass": 0, "_last_draw": None, "subpasses": [{"draws": []}]}
        record = record_draw(conv, p, 12, lambda: conv.add_draw(p, 12, None))
        kinds = [entry[0] for entry in record["stream"]]
        self.assertEqual(kinds, ["warn", "texture", "sidecar"])
        self.assertEqual(record["stream"][1][5], ["event 12: texture 100 carried as RGBA8"])
        self.assertEqual(record["checks"], [(100, False)])
        self.assertEqual(record["draw"]["name"], "event_12")
        target = FrameConverter()
        target.material[100] = "texture_100"  # met before: neither read nor warned again
        q = {"name": "pass0", "_subpass": 0, "_last_draw": None, "subpasses": [{"draws": []}]}
        self.assertTrue(apply_draw(target, q, 12, pickle.loads(pickle.dumps(record))))
        self.assertEqual(target.warnings, ["logic op is not carried"])
        self.assertEqual(q["_last_draw"], 12)
        self.assertEqual(target.meshes[0]["positions"]["offset"], 0)


class SplitPlanTest(unittest.TestCase):
    def plan(self):
        started = []

        def workers(conv, rdc, events, count, first):
            started.append((events[first:], count))
            return "workers"
        plan = split.SplitPlan("f.rdc", list(range(100, 200)), 4, 2.0)
        return plan, started, workers

    def test_cheap_draws_never_split(self):
        plan, started, workers = self.plan()
        conv = types.SimpleNamespace(split_plan=plan)
        saved, split.Workers = split.Workers, workers
        try:
            self.assertIsNone(plan.after(conv, 110, 0.05))  # 89 draws left x 0.05 s: 4.5 s, not worth 6.6 s
            self.assertEqual(plan.after(conv, 110, 0.5), "workers")  # 44.5 s here, 14.6 s in workers
        finally:
            split.Workers = saved
        self.assertEqual(started, [(list(range(111, 200)), 4)])
        self.assertIsNone(conv.split_plan)

    def test_too_few_draws_left(self):
        plan, started, workers = self.plan()
        self.assertIsNone(plan.after(types.SimpleNamespace(split_plan=plan), 192, 100.0))  # 7 left, 4 jobs


if __name__ == "__main__":
    unittest.main()
