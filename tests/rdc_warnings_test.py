# tools/rdc_common.group_warnings, the one line per kind that tools/rdc2trace prints and stores as
# the trace's `warnings`: run by ctest (rdc_warnings) with plain python3, no RenderDoc needed.
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "tools"))
from rdc_common import group_warnings  # noqa: E402


class GroupWarnings(unittest.TestCase):
    def test_one_line_per_kind_with_count_and_first_ids(self):
        # A frame of 39 draws with polygon offset (glPolygonOffset), every third one, as GL names them.
        messages = [f"event {10 + 3 * i} (glDrawElements): polygon offset (depth bias) is not carried"
                    for i in range(39)]
        messages.insert(5, "image backbuffer_color_7: format R8G8B8_UNORM has no trace equivalent; carried as RGBA8")
        self.assertEqual(group_warnings(messages), [
            "39 events (10, 13, 16, 19, 22, ...): polygon offset (depth bias) is not carried",
            "image backbuffer_color_7: format R8G8B8_UNORM has no trace equivalent; carried as RGBA8"])

    def test_single_events_and_other_messages_stay_as_they_were(self):
        messages = ["event 64 (glDrawArrays): more than 3 sampled images; the reads of the rest are not counted",
                    "event 5: depth bias is not carried",
                    "pass3 attachment 0: layout VK_IMAGE_LAYOUT_GENERAL carried as general",
                    "2 x vkCmdCopyBufferToImage: not supported by the converter; left out"]
        self.assertEqual(group_warnings(messages), messages)

    def test_kinds_keep_first_seen_order_and_list_ids_in_event_order(self):
        messages = ["event 30: depth bias is not carried", "event 12: logic op is not carried",
                    "event 20: depth bias is not carried", "event 9 (glDrawArrays): depth bias is not carried",
                    "event 40: logic op is not carried"]
        self.assertEqual(group_warnings(messages), ["3 events (9, 20, 30): depth bias is not carried",
                                                    "2 events (12, 40): logic op is not carried"])

    def test_the_same_event_twice_is_one_event(self):
        self.assertEqual(group_warnings(["event 3: depth bias is not carried", "event 3: depth bias is not carried"]),
                         ["event 3: depth bias is not carried"])


if __name__ == "__main__":
    unittest.main()
