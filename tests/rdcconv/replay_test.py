"""ctest rdcconv_replay: tools/rdcconv/replay.py with a fake controller: the replay moves only when
it must (SetFrameEvent is a full replay of the frame), pixels kept at an event are not read again,
events come in order with their chunks, warnings are kept once."""
import types
import unittest

from fakes import Action, Controller, fake_rd, texture

from rdcconv.replay import Replay, last_event


def replay(**kwargs):
    ctl = Controller(textures=[texture(7), texture(9)], names={7: "color"}, **kwargs)
    r = Replay(fake_rd(), ctl, "/tmp/out/frame.json")
    r.trace_images = {7: {"name": "color", "_vk_format": "VK_FORMAT_R8G8B8A8_UNORM"},
                      9: {"name": "scratch", "transient": True, "_vk_format": "VK_FORMAT_R8G8B8A8_UNORM"}}
    return r, ctl


class ReplayTest(unittest.TestCase):
    def test_stem_and_names(self):
        r, _ = replay()
        self.assertEqual(r.stem, "frame")
        self.assertEqual(r.names, {7: "color", 9: ""})

    def test_replay_to_moves_only_to_another_event(self):
        r, ctl = replay()
        for eid in (5, 5, 8, 8, 5):
            r.replay_to(eid)
        self.assertEqual(ctl.calls, [("SetFrameEvent", 5), ("SetFrameEvent", 8), ("SetFrameEvent", 5)])

    def test_kept_pixels_are_not_read_again(self):
        r, ctl = replay()
        p = {"_last_draw": 12, "_begin": 10,
             "attachments": [{"_image_id": 7, "_mip": 0, "_layer": 0}, {"_image_id": 9, "_mip": 0, "_layer": 0}]}
        r.keep_pixels(p)  # the replay is elsewhere: nothing is read
        self.assertEqual(ctl.calls, [])
        r.replay_to(12)
        r.keep_pixels(p)  # transient image 9 is never read
        self.assertEqual(ctl.calls, [("SetFrameEvent", 12), ("GetTextureData", 7, (0, 0, 0))])
        r.replay_to(20)
        self.assertEqual(r.pixels_at(12, 7, 0, 0), bytes([7, 0, 0, 0]))
        self.assertEqual(ctl.calls[-1], ("SetFrameEvent", 20))  # no replay back to 12
        r.pixels_at(12, 7, 0, 0)  # taken once: now replayed to and read
        self.assertEqual(ctl.calls[-2:], [("SetFrameEvent", 12), ("GetTextureData", 7, (0, 0, 0))])

    def test_events_in_order_without_made_up_ones(self):
        chunks = [types.SimpleNamespace(name=n) for n in ("vkCmdBeginRenderPass", "vkCmdDraw", "vkCmdEndRenderPass")]
        draw = Action(2, [(2, 1)])
        root = Action(3, [(1, 0), (3, 2), (4, 99)], children=[draw])
        r, _ = replay(actions=[root], chunks=chunks)
        r.sf = r.ctl.GetStructuredFile()
        got = [(eid, name, action is not None) for eid, name, _, action in r.events()]
        self.assertEqual(got, [(1, "vkCmdBeginRenderPass", False), (3, "vkCmdEndRenderPass", True),
                               (2, "vkCmdDraw", True)])
        self.assertEqual(last_event(r.ctl), 3)

    def test_warn_keeps_each_message_once(self):
        r, _ = replay()
        for m in ("a", "b", "a"):
            r.warn(m)
        self.assertEqual(r.warnings, ["a", "b"])


if __name__ == "__main__":
    unittest.main()
