"""ctest rdcconv_cli: tools/rdcconv/cli.py's command line: (capture, trace) pairs, {name} for several
captures, one-line usage errors."""
import unittest

from fakes import TOOLS  # noqa: F401  (puts tools/ on the path)

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

    def test_usage(self):
        for args in ([], ["a.rdc"], ["a.rdc", "-o", "t.txt"], ["a.rdc", "-o", "b.rdc", "-o", "t.json"]):
            with self.assertRaisesRegex(ToolError, "^usage: "):
                parse_jobs(args)


if __name__ == "__main__":
    unittest.main()
