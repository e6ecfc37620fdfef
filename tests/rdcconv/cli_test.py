"""ctest rdcconv_cli: tools/rdcconv/cli.py's command line: (capture, trace) pairs, {name} for several
captures, --sequence's captures as one job, one-line usage errors; tools/rdc2trace given a folder, a FIFO or a device says so in one
line, exit code 2, and leaves nothing behind."""
import os
import subprocess
import tempfile
import unittest

from fakes import TOOLS

from rdcconv.cli import parse_jobs
from rdcconv.common import ToolError


class CliTest(unittest.TestCase):
    def test_one_capture(self):
        self.assertEqual(parse_jobs(["a.rdc", "-o", "out/t.json"]), [("a.rdc", "out/t.json")])

    def test_several_captures_need_name(self):
        self.assertEqual(parse_jobs(["x/a.rdc", "y/b.rdc", "-o", "o/{name}.json"]),
                         [("x/a.rdc", "o/a.json"), ("y/b.rdc", "o/b.json")])
        with self.assertRaisesRegex(ToolError, r"\{name\}"):
            parse_jobs(["a.rdc", "b.rdc", "-o", "o/t.json"])
        with self.assertRaisesRegex(ToolError, "same file name"):
            parse_jobs(["x/a.rdc", "y/a.rdc", "-o", "o/{name}.json"])

    def test_sequence_is_one_job(self):
        self.assertEqual(parse_jobs(["--sequence", "f2.rdc", "f3.rdc", "f4.rdc", "-o", "s/t.json"]),
                         [(["f2.rdc", "f3.rdc", "f4.rdc"], "s/t.json")])
        with self.assertRaisesRegex(ToolError, "at least two captures"):
            parse_jobs(["--sequence", "f2.rdc", "-o", "s/t.json"])
        with self.assertRaisesRegex(ToolError, "^usage: "):
            parse_jobs(["--sequence", "f2.rdc", "f3.rdc", "-o", "s/t.txt"])

    def test_usage(self):
        for args in ([], ["a.rdc"], ["a.rdc", "-o", "t.txt"], ["a.rdc", "-o", "b.rdc", "-o", "t.json"]):
            with self.assertRaisesRegex(ToolError, "^usage: "):
                parse_jobs(args)


class BadInputTest(unittest.TestCase):
    def run_tool(self, rdc, out_dir):
        out = os.path.join(out_dir, "out", "t.json")
        env = dict(os.environ, DISPLAY="")  # the check comes before any display is needed
        return subprocess.run([os.path.join(TOOLS, "rdc2trace"), rdc, "-o", out], capture_output=True, text=True,
                              timeout=60, env=env)

    def check(self, rdc, d, what):
        result = self.run_tool(rdc, d)
        lines = result.stderr.splitlines()
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertEqual(len(lines), 1, result.stderr)
        self.assertTrue(lines[0].startswith(f"rdc2trace: error: {rdc}: "), lines[0])
        self.assertIn(what, lines[0])
        self.assertNotIn("no such file", lines[0])
        self.assertFalse(os.path.exists(os.path.join(d, "out")))

    def test_folder(self):
        with tempfile.TemporaryDirectory() as d:
            folder = os.path.join(d, "frame.rdc")
            os.mkdir(folder)
            self.check(folder, d, "a folder")

    def test_fifo(self):
        with tempfile.TemporaryDirectory() as d:
            fifo = os.path.join(d, "frame.rdc")
            os.mkfifo(fifo)
            self.check(fifo, d, "a named pipe")  # and it does not hang waiting for a writer

    def test_device(self):
        with tempfile.TemporaryDirectory() as d:
            self.check("/dev/zero", d, "a device")

    def test_missing_file_still_says_so(self):
        with tempfile.TemporaryDirectory() as d:
            result = self.run_tool(os.path.join(d, "none.rdc"), d)
            self.assertEqual(result.returncode, 2)
            self.assertEqual(result.stderr, f"rdc2trace: error: {os.path.join(d, 'none.rdc')}: no such file\n")


if __name__ == "__main__":
    unittest.main()
