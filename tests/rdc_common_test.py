# ctest rdc_common (plain python3, no RenderDoc): tools/rdcconv/common's group_warnings (one line per
# kind of warning), supervised (a crash in the work is one line, temporary folders removed), the
# private Xvfb started without waiting (Display.start, then wait) and private_temp_folder (the folders a
# killed run left removed at the next start).
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import unittest

TOOLS = os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "tools")
sys.path.insert(0, TOOLS)
from rdcconv.common import Display, group_warnings, private_temp_folder  # noqa: E402


class PrivateTempFolder(unittest.TestCase):
    def test_folders_of_gone_processes_removed_live_and_foreign_kept(self):
        with tempfile.TemporaryDirectory() as parent:
            gone = os.path.join(parent, "x-999999-abcd_123")      # kill -9 left it
            live = os.path.join(parent, "x-%d-abcdefgh" % os.getppid())
            other = os.path.join(parent, "x-999999-short")        # not of the pattern
            for d in (gone, live, other):
                os.makedirs(os.path.join(d, "sub"))
            made = private_temp_folder("x", parent)
            self.assertFalse(os.path.exists(gone))
            self.assertTrue(os.path.isdir(live) and os.path.isdir(other))
            self.assertRegex(os.path.basename(made), r"^x-%d-[a-z0-9_]{8}$" % os.getpid())


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



class Supervised(unittest.TestCase):
    """supervised() in a program of its own: its work notes a step and a temporary folder, then
    ends as told (a segfault, a one-line ToolError, an unforeseen exception, success)."""

    def run_work(self, ending):
        with tempfile.TemporaryDirectory() as scratch:
            program = textwrap.dedent(f"""
                import os, signal, sys, tempfile
                sys.path.insert(0, {TOOLS!r})
                from rdcconv.common import ToolError, note, note_temp, supervised
                runs = os.path.join({scratch!r}, "runs")

                def work():
                    with open(runs, "a") as f:
                        f.write("run\\n")
                    tmp = tempfile.mkdtemp(dir={scratch!r}, prefix="work_")
                    note_temp(tmp)
                    note("frame.rdc: event 7: reading texture t (resource 9, BC7_UNORM 1024x1024, 11 levels)")
                    {ending}
                    print("done")
                supervised("tool", work)
                """)
            r = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
            with open(os.path.join(scratch, "runs")) as f:
                runs = f.read().count("run")
            left = [n for n in os.listdir(scratch) if n.startswith("work_")]
            return r, runs, left

    def test_a_crash_is_one_line_naming_the_step_after_a_second_run(self):
        r, runs, left = self.run_work("os.kill(os.getpid(), signal.SIGSEGV)")
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr, "tool: error: RenderDoc's replay crashed (SIGSEGV, 2 runs) while frame.rdc: event 7: "
                                   "reading texture t (resource 9, BC7_UNORM 1024x1024, 11 levels); nothing written\n")
        self.assertEqual((runs, left, r.stdout), (2, [], ""))

    def test_a_tool_error_and_an_unforeseen_exception_are_one_line_exit_2(self):
        for ending, line in (("raise ToolError('frame.rdc: no such file')", "tool: error: frame.rdc: no such file\n"),
                             ("[][1]", "tool: error: IndexError: list index out of range; "
                                       "TBDR_DEBUG=1 shows the traceback\n")):
            r, runs, left = self.run_work(ending)
            self.assertEqual((r.returncode, r.stderr, runs, left), (2, line, 1, []))

    def test_a_crash_in_a_skippable_step_reruns_the_work_without_it(self):
        # The step noted with a skip key crashes until a run finds the key skipped: then the work
        # leaves that thing out and ends well (a texture RenderDoc's SaveTexture crashes on).
        ending = textwrap.dedent("""
            from rdcconv.common import skipped
            for key in ("texture 9", "texture 12"):
                if skipped(key):
                    print("left out", key)
                    continue
                note(f"saving {key}", key)
                os.kill(os.getpid(), signal.SIGSEGV)""").replace("\n", "\n                    ")
        r, runs, left = self.run_work(ending)
        self.assertEqual((r.returncode, r.stderr, runs, left), (0, "", 3, []))
        # (a crashed run's output may have reached the pipe before its crash: the last run's ends it)
        self.assertTrue(r.stdout.endswith("left out texture 9\nleft out texture 12\ndone\n"), r.stdout)

    def test_success_keeps_the_output_and_exit_0(self):
        r, runs, left = self.run_work("pass")
        self.assertEqual((r.returncode, r.stdout, r.stderr, runs, left), (0, "done\n", "", 1, []))

    def test_sigterm_reaches_the_work_and_its_folders_go(self):
        with tempfile.TemporaryDirectory() as scratch:
            program = textwrap.dedent(f"""
                import sys, tempfile, time
                sys.path.insert(0, {TOOLS!r})
                from rdcconv.common import note_temp, supervised

                def work():
                    note_temp(tempfile.mkdtemp(dir={scratch!r}, prefix="work_"))
                    print("ready", flush=True)
                    time.sleep(60)
                supervised("tool", work)
                """)
            p = subprocess.Popen([sys.executable, "-c", program], stdout=subprocess.PIPE, text=True)
            self.assertEqual(p.stdout.readline(), "ready\n")
            p.send_signal(signal.SIGTERM)
            self.assertEqual(p.wait(timeout=30), 128 + signal.SIGTERM)
            p.stdout.close()
            self.assertEqual([n for n in os.listdir(scratch) if n.startswith("work_")], [])


@unittest.skipUnless(os.path.exists("/usr/bin/Xvfb"), "Xvfb is not installed")
class PrivateDisplay(unittest.TestCase):
    def setUp(self):
        self.saved = os.environ.pop("DISPLAY", None)

    def tearDown(self):
        os.environ.pop("DISPLAY", None)
        if self.saved is not None:
            os.environ["DISPLAY"] = self.saved

    def test_start_returns_before_the_display_is_up_and_wait_sets_it(self):
        display = Display().start()
        self.assertIsNone(os.environ.get("DISPLAY"))  # not waited for yet
        with display:  # waits; stops Xvfb on leaving
            self.assertRegex(os.environ["DISPLAY"], r"^:\d+$")
            proc = display.proc
            self.assertIsNone(proc.poll())
        self.assertIsNotNone(proc.poll())

    def test_a_set_display_starts_nothing(self):
        os.environ["DISPLAY"] = ":4242"
        with Display().start() as display:
            self.assertIsNone(display.proc)
            self.assertEqual(os.environ["DISPLAY"], ":4242")


if __name__ == "__main__":
    unittest.main()
