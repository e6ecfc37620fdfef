#!/usr/bin/env python3
# Drives headless Chromium through the Chrome DevTools Protocol over a pipe, for the HTML pages' browser
# tests: open a page, click, hover, evaluate, screenshot; report the results and every console error.
#
# --remote-debugging-pipe (chromium --help; https://chromedevtools.github.io/devtools-protocol/): the
# browser reads JSON commands from file descriptor 3 and writes replies and events to 4, each message
# ending in a NUL byte, so no WebSocket client is needed (only Python's standard library).
#
# Usage: browser_drive.py STEPS.json [--chromium PATH] [--profile DIR] [--size WxH]
# STEPS.json is a list of steps, each an object with one of:
#   {"open": "/abs/page.html"}      load it and wait until <body data-rendered> is set (its value is the result)
#   {"eval": "JS expression"}       its value (promises awaited)
#   {"wait": "JS expression"}       polls it until true (what a click's queued events build), 30 s at most
#   {"click": "CSS selector"}       a real mouse click at the element's centre (scrolled into view first)
#   {"hover": "CSS selector", "at": [fx, fy]}  the mouse moved to that fraction of the element's box
#   {"key": "n"}                    a key pressed and released on the focused page (one printable character)
#   {"screenshot": "out.png", "full": true}    the viewport (or the whole page) as PNG
# Prints {"results": [one per step], "errors": ["console or script errors"]} on stdout; exit 1 when the
# browser cannot be driven (did not start, a step timed out, a selector matched nothing).
import argparse
import base64
import fcntl
import json
import os
import select
import subprocess
import sys
import time


class Browser:
    def __init__(self, chromium, profile, size):
        to_browser_read, self.to_browser = os.pipe()
        self.from_browser, from_browser_write = os.pipe()

        def wire_pipes():
            # Copies above 10 first, so moving them onto 3 and 4 cannot close one another.
            read_copy = fcntl.fcntl(to_browser_read, fcntl.F_DUPFD, 10)
            write_copy = fcntl.fcntl(from_browser_write, fcntl.F_DUPFD, 10)
            os.dup2(read_copy, 3)
            os.dup2(write_copy, 4)

        self.process = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
             "--hide-scrollbars", "--user-data-dir=" + profile, "--remote-debugging-pipe", "--window-size=" + size,
             "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(3, 4), preexec_fn=wire_pipes, env=dict(os.environ, HOME=profile))
        os.close(to_browser_read)
        os.close(from_browser_write)
        self.buffer = b""
        self.next_id = 0
        self.errors = []
        self.events = []

    def close(self):
        try:
            self.send("Browser.close")
        except OSError:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def send(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        return self.next_id

    def receive(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.from_browser], [], [], left)[0]:
                raise TimeoutError("no message from the browser in time")
            chunk = os.read(self.from_browser, 1 << 20)
            if not chunk:
                raise ConnectionError("the browser closed its pipe")
            self.buffer += chunk
        text, self.buffer = self.buffer.split(b"\0", 1)
        message = json.loads(text)
        if "method" in message:
            self.note_event(message)
        return message

    def note_event(self, event):
        method, params = event["method"], event.get("params", {})
        self.events.append(method)
        if method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            self.errors.append("exception: " + details.get("exception", {}).get("description", details.get("text", "")))
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append("console." + params["type"] + ": " +
                               " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", [])))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            self.errors.append("log: " + params["entry"].get("text", ""))

    def call(self, method, params=None, session=None, timeout=30):
        wanted = self.send(method, params, session)
        deadline = time.monotonic() + timeout
        while True:
            message = self.receive(deadline)
            if message.get("id") == wanted:
                if "error" in message:
                    raise RuntimeError(method + ": " + json.dumps(message["error"]))
                return message.get("result", {})


class Page:
    def __init__(self, browser):
        self.browser = browser
        targets = browser.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = browser.call("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(domain + ".enable")

    def call(self, method, params=None, timeout=30):
        return self.browser.call(method, params, self.session, timeout)

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError("evaluating " + expression + ": " + json.dumps(result["exceptionDetails"])[:400])
        return result["result"].get("value")

    def open(self, path):
        url = path if "://" in path else "file://" + os.path.abspath(path)
        self.call("Page.navigate", {"url": url})
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            state = self.evaluate("document.readyState === 'complete' ? (document.body.dataset.rendered || 'unset') : ''")
            if state:
                return state
            time.sleep(0.05)
        raise TimeoutError("the page did not load: " + url)

    def point(self, selector, at):
        box = self.evaluate("(() => { const e = document.querySelector(%s); if (!e) return null; e.scrollIntoView({block: 'center'});"
                            " const r = e.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()" % json.dumps(selector))
        if box is None:
            raise LookupError("no element matches " + selector)
        return box[0] + at[0] * box[2], box[1] + at[1] * box[3]

    def mouse(self, kind, x, y, **extra):
        self.call("Input.dispatchMouseEvent", dict({"type": kind, "x": x, "y": y}, **extra))

    def step(self, step):
        if "open" in step:
            return self.open(step["open"])
        if "eval" in step:
            return self.evaluate(step["eval"])
        if "wait" in step:
            deadline = time.monotonic() + 30
            while not self.evaluate(step["wait"]):
                if time.monotonic() > deadline:
                    raise TimeoutError("still false after 30 s: " + step["wait"])
                time.sleep(0.05)
            return True
        if "click" in step:
            x, y = self.point(step["click"], [0.5, 0.5])
            self.mouse("mouseMoved", x, y)
            self.mouse("mousePressed", x, y, button="left", clickCount=1)
            self.mouse("mouseReleased", x, y, button="left", clickCount=1)
            return [x, y]
        if "hover" in step:
            x, y = self.point(step["hover"], step.get("at", [0.5, 0.5]))
            self.mouse("mouseMoved", x, y)
            return [x, y]
        if "key" in step:
            for kind in ("keyDown", "keyUp"):
                self.call("Input.dispatchKeyEvent", {"type": kind, "key": step["key"], "text": step["key"] if kind == "keyDown" else "",
                                                     "code": "Key" + step["key"].upper(), "windowsVirtualKeyCode": ord(step["key"].upper())})
            return step["key"]
        if "screenshot" in step:
            shot = self.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": bool(step.get("full"))}, timeout=120)
            with open(step["screenshot"], "wb") as out:
                out.write(base64.b64decode(shot["data"]))
            return step["screenshot"]
        raise ValueError("unknown step: " + json.dumps(step))


def main():
    parser = argparse.ArgumentParser(description="drive headless Chromium through the DevTools protocol (pipe)")
    parser.add_argument("steps")
    parser.add_argument("--chromium", default="chromium")
    parser.add_argument("--profile", required=True, help="an empty folder for the browser's profile and HOME")
    parser.add_argument("--size", default="1400,1000", help="window size W,H")
    args = parser.parse_args()
    with open(args.steps) as f:
        steps = json.load(f)
    browser = Browser(args.chromium, args.profile, args.size)
    results = []
    try:
        page = Page(browser)
        for step in steps:
            results.append(page.step(step))
            # Events the step caused (a click's handler throwing) arrive after its reply: drain them.
            page.evaluate("0")
    except (OSError, TimeoutError, ConnectionError, RuntimeError, LookupError, ValueError, StopIteration) as e:
        print(json.dumps({"results": results, "errors": browser.errors, "failed": str(e)}))
        browser.close()
        return 1
    browser.close()
    print(json.dumps({"results": results, "errors": browser.errors}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
