#!/usr/bin/python3
"""tools/capture tells the truth and leaves nothing running: the program and everything it started are
ended after the capture (even what ignores SIGTERM), RenderDoc's own reason is read from its log, and a
capture file RenderDoc cannot read is refused. The last two cases need RenderDoc and vkcube (Debian's
python3-renderdoc, vulkan-tools): skipped without them unless TBDR_REQUIRE_EXTERNAL is set."""
import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CAPTURE = os.path.join(ROOT, "tools", "capture")


def load_capture():
    loader = importlib.machinery.SourceFileLoader("capture_tool", CAPTURE)
    spec = importlib.util.spec_from_loader("capture_tool", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


capture = load_capture()


def have_renderdoc():
    try:
        import renderdoc  # noqa: F401
        return True
    except ImportError:
        return False


def cwd_of(pid):
    try:
        return os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return None


def external_or_skip(test):
    if have_renderdoc() and subprocess.run(["which", "vkcube"], capture_output=True).returncode == 0:
        return
    if os.environ.get("TBDR_REQUIRE_EXTERNAL"):
        test.fail("RenderDoc's Python module or vkcube is missing")
    test.skipTest("RenderDoc's Python module or vkcube is missing")


class EndProgram(unittest.TestCase):
    def test_every_descendant_ends_even_one_ignoring_sigterm(self):
        # The shell ignores SIGTERM, and so do the two sleeps it starts (an ignored signal is inherited).
        program = subprocess.Popen(["sh", "-c", "trap '' TERM; sleep 4242 & sleep 4343 & wait"])
        time.sleep(0.3)
        tree = capture.process_tree(program.pid)
        self.assertEqual(len(tree), 3, tree)
        start = time.time()
        capture.end_program(program.pid)
        self.assertLess(time.time() - start, 10)
        self.assertEqual([p for p in tree if capture.running(p)], [])


class Retries(unittest.TestCase):
    def launches(self, results):
        calls = []

        def launch():
            calls.append(1)
            return results[min(len(calls), len(results)) - 1]
        return launch, calls

    def test_a_program_running_past_the_timeout_is_launched_once(self):
        launch, calls = self.launches([(None, {}, False)])
        self.assertEqual(capture.launch_with_retries(launch, 1), (None, {}, False))
        self.assertEqual(len(calls), 1)

    def test_a_failed_connection_or_an_ended_program_is_tried_again(self):
        for first in (("could not connect to RenderDoc in the program", {}, False), (None, {}, True)):
            launch, calls = self.launches([first, (None, {5: "f.rdc"}, False)])
            self.assertEqual(capture.launch_with_retries(launch, 1), (None, {5: "f.rdc"}, False))
            self.assertEqual(len(calls), 2)
        launch, calls = self.launches([(None, {}, True)])
        self.assertEqual(capture.launch_with_retries(launch, 1), (None, {}, True))
        self.assertEqual(len(calls), 3)


class RenderDocReason(unittest.TestCase):
    def test_last_error_of_the_program_is_read_from_the_log(self):
        with tempfile.TemporaryDirectory() as tmp:
            os.mkdir(os.path.join(tmp, "RenderDoc"))
            with open(os.path.join(tmp, "RenderDoc", "RenderDoc_2026.12.05_05.00.00.log"), "w") as f:
                f.write("RDOC 001234: [05:00:00]   gl_hooks.cpp( 10) - Log     - hooked\n"
                        "RDOC 004321: [05:00:00]   gl_hooks.cpp( 11) - Error   - another process's error\n"
                        "RDOC 001234: [05:00:01]   gl_hooks.cpp( 12) - Warning - a warning\n"
                        "RDOC 001234: [05:00:02]   gl_hooks.cpp( 13) - Error   - Compatibility profile context is not supported\n")
            saved = tempfile.tempdir
            tempfile.tempdir = tmp
            try:
                self.assertEqual(capture.renderdoc_reason(1234, 0), "Compatibility profile context is not supported")
                self.assertIsNone(capture.renderdoc_reason(999, 0))
                with open(os.path.join(tmp, "RenderDoc", "RenderDoc_2026.12.05_05.00.00.log"), "a") as f:
                    f.write("RDOC 005555: [05:00:03]   gl_hooks.cpp( 14) - Warning - FBOs are shared on this implementation\n")
                self.assertIsNone(capture.renderdoc_reason(5555, 0))  # a warning is not a reason
                self.assertIsNone(capture.renderdoc_reason(1234, time.time() + 60))  # older than the launch
            finally:
                tempfile.tempdir = saved


class WithRenderDoc(unittest.TestCase):
    def test_an_empty_capture_file_is_refused(self):
        external_or_skip(self)
        import renderdoc as rd
        with tempfile.NamedTemporaryFile(suffix=".rdc") as empty:
            self.assertEqual(capture.check_capture(rd, empty.name), "RenderDoc wrote an empty capture file")
            empty.write(b"not a capture at all")
            empty.flush()
            self.assertIn("cannot read the capture", capture.check_capture(rd, empty.name))

    def test_capture_returns_through_a_pipe_and_leaves_no_program_running(self):
        external_or_skip(self)
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "cube.rdc")
            # Read to the end of its output, as `tools/capture ... | tail` does: returns only when no
            # process holding the pipe is left.
            p = subprocess.run([CAPTURE, "vkcube", "--frame", "3", "--out", out], capture_output=True, text=True,
                               timeout=180, cwd=tmp)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertGreater(os.path.getsize(out), 0)
            # This capture's vkcube runs in `tmp` (tools/capture starts it in its own folder): a vkcube
            # of another test running beside this one (ctest -j) is not this one's.
            left = [pid for pid in subprocess.run(["pgrep", "-x", "vkcube"], capture_output=True,
                                                  text=True).stdout.split() if cwd_of(pid) == os.path.realpath(tmp)]
            self.assertEqual(left, [], "vkcube still running after the capture")


if __name__ == "__main__":
    unittest.main()
