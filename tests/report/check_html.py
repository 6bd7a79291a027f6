#!/usr/bin/env python3
"""Opens a gpuchar HTML page in headless Chromium and checks it as a reader
would see it.

usage: check_html.py CHROMIUM PAGE.html RESULTS.json SCREENSHOT.png [--no-figures]

Chromium is driven through the DevTools protocol over a pipe
(--remote-debugging-pipe: requests on fd 3, replies on fd 4, each message a
JSON text ended by a NUL byte), so nothing beyond Python and Chromium is
needed. The checks:
  - the page loads from the file with no console error, no uncaught
    exception and no request for anything outside the page;
  - every figure rendered: each <figure> holds an inline SVG whose drawn
    box is not empty and that has drawn paths (or, with --no-figures, the
    page has no figure and says which package adds them);
  - the numbers of every metrics table equal the results document: the
    exact value in data-value and the displayed text within its rounding,
    for every metric of every benchmark, and the limit likewise;
  - a screenshot of the page is written.
Exits 0 when every check passes, 1 otherwise, 77 when Chromium cannot start.
"""
import base64
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time


def fail(msg):
    print("FAIL: " + msg)
    return 1


class Browser:
    def __init__(self, chromium, profile):
        import fcntl
        r_to_chrome, w_to_chrome = os.pipe()
        r_from_chrome, w_from_chrome = os.pipe()
        # Chromium reads requests on fd 3 and writes replies on fd 4: the
        # child's ends move above 10 first, so that the two dup2 calls
        # cannot overwrite each other, and 3 and 4 are kept open.
        hi_r = fcntl.fcntl(r_to_chrome, fcntl.F_DUPFD, 10)
        hi_w = fcntl.fcntl(w_from_chrome, fcntl.F_DUPFD, 10)
        os.close(r_to_chrome)
        os.close(w_from_chrome)
        r_to_chrome, w_from_chrome = hi_r, hi_w

        def child_fds():
            os.dup2(r_to_chrome, 3)
            os.dup2(w_from_chrome, 4)
        args = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--hide-scrollbars",
                "--user-data-dir=" + profile, "--remote-debugging-pipe", "about:blank"]
        self.proc = subprocess.Popen(args, pass_fds=(3, 4, r_to_chrome, w_from_chrome),
                                     preexec_fn=child_fds, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(r_to_chrome)
        os.close(w_from_chrome)
        self.w = os.fdopen(w_to_chrome, "wb", buffering=0)
        self.r = os.fdopen(r_from_chrome, "rb", buffering=0)
        self.buf = b""
        self.next_id = 0
        self.events = []

    def _read_message(self):
        while b"\0" not in self.buf:
            chunk = self.r.read(1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed the protocol pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None):
        self.next_id += 1
        req = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            req["sessionId"] = session
        self.w.write(json.dumps(req).encode() + b"\0")
        while True:
            msg = self._read_message()
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise RuntimeError("%s: %s" % (method, msg["error"]))
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)

    def wait_event(self, method, timeout):
        end = time.time() + timeout
        while time.time() < end:
            for i, e in enumerate(self.events):
                if e.get("method") == method:
                    return self.events.pop(i)
            self.events.append(self._read_message())
        raise RuntimeError("no %s within %g s" % (method, timeout))

    def close(self):
        try:
            self.call("Browser.close")
        except Exception:
            pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()


# Script run in the page: everything the checks need, as one JSON value.
PROBE = r"""
(() => {
  const figs = [...document.querySelectorAll('figure.fig')].map(f => {
    const svg = f.querySelector('svg');
    if (!svg) return {id: f.dataset.figure, svg: false};
    const r = svg.getBoundingClientRect();
    let drawn = 0;
    svg.querySelectorAll('path, polyline, line, circle, rect, use').forEach(e => {
      const b = e.getBBox ? e.getBBox() : null;
      if (b && (b.width > 0 || b.height > 0)) drawn++;
    });
    return {id: f.dataset.figure, svg: true, w: r.width, h: r.height, drawn: drawn};
  });
  const cell = td => td ? {value: td.dataset.value, scale: td.dataset.scale,
                           text: td.textContent.trim()} : null;
  const tables = [...document.querySelectorAll('table.metrics')].map(t => ({
    bench: t.dataset.bench,
    rows: [...t.querySelectorAll('tr[data-metric]')].map(tr => ({
      metric: tr.dataset.metric,
      value: cell(tr.querySelector('td.value')),
      limit: cell(tr.querySelector('td.limit')),
      unit: tr.querySelector('td.unit').dataset.unit
    }))
  }));
  const notice = document.getElementById('figures-note');
  return JSON.stringify({figs: figs, tables: tables,
                         notice: notice ? notice.textContent : '',
                         benches: document.querySelectorAll('section.bench').length});
})()
"""


def same_number(cell, want, what):
    """The exact value and the displayed one against the document's."""
    if want is None:
        if cell["value"] != "" or cell["text"] != "-":
            return "%s: the document has null, the page shows %r" % (what, cell["text"])
        return None
    if cell["value"] == "":
        return "%s: the document has %r, the page has no value" % (what, want)
    got = float(cell["value"])
    if got != want:
        return "%s: data-value %r differs from the document's %r" % (what, got, want)
    shown = float(cell["text"]) * float(cell["scale"])
    # Three significant digits (or a whole number): half a unit of the last digit.
    tol = 0.0051 * abs(want) + 1e-300
    if abs(shown - want) > tol:
        return "%s: the page shows %s (%g), the document has %r" % (what, cell["text"], shown,
                                                                     want)
    return None


def main():
    argv = sys.argv[1:]
    no_figures = "--no-figures" in argv
    argv = [a for a in argv if a != "--no-figures"]
    if len(argv) != 4:
        print(__doc__)
        return 2
    chromium, page, results, shot = argv
    if not shutil.which(chromium):
        print("SKIP: %s not found (install the Debian package chromium)" % chromium)
        return 77
    doc = json.load(open(results))
    profile = tempfile.mkdtemp(prefix="gpuchar-chromium.")
    errors = []
    try:
        br = Browser(chromium, profile)
        try:
            target = br.call("Target.createTarget", {"url": "about:blank"})["targetId"]
            sess = br.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
                "sessionId"]
            for dom in ("Page", "Runtime", "Log", "Network"):
                br.call(dom + ".enable", session=sess)
            br.call("Emulation.setDeviceMetricsOverride",
                    {"width": 1400, "height": 1000, "deviceScaleFactor": 1, "mobile": False},
                    session=sess)
            br.call("Page.navigate", {"url": "file://" + os.path.abspath(page)}, session=sess)
            br.wait_event("Page.loadEventFired", 60)
            res = br.call("Runtime.evaluate", {"expression": PROBE, "returnByValue": True},
                          session=sess)
            probe = json.loads(res["result"]["value"])
            metrics = br.call("Page.getLayoutMetrics", session=sess)
            size = metrics.get("cssContentSize") or metrics["contentSize"]
            height = min(int(size["height"]), 16000)
            snap = br.call("Page.captureScreenshot",
                           {"format": "png", "captureBeyondViewport": True,
                            "clip": {"x": 0, "y": 0, "width": 1400, "height": height,
                                     "scale": 1}}, session=sess)
            with open(shot, "wb") as f:
                f.write(base64.b64decode(snap["data"]))
            # Collect what the page said while loading.
            for e in br.events:
                m, p = e.get("method"), e.get("params", {})
                if m == "Runtime.exceptionThrown":
                    errors.append("uncaught exception: %s" %
                                  p["exceptionDetails"].get("text", p))
                elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                    errors.append("console.%s: %s" % (p["type"], [a.get("value") for a in
                                                                   p.get("args", [])]))
                elif m == "Log.entryAdded" and p["entry"].get("level") == "error":
                    errors.append("console error: %s" % p["entry"].get("text"))
                elif m == "Network.requestWillBeSent":
                    url = p["request"]["url"]
                    if not url.startswith("file://") and not url.startswith("data:") and \
                            url != "about:blank":
                        errors.append("request outside the page: %s" % url)
        finally:
            br.close()
    except RuntimeError as e:
        shutil.rmtree(profile, ignore_errors=True)
        print("SKIP: Chromium could not be driven: %s" % e)
        return 77
    shutil.rmtree(profile, ignore_errors=True)

    if os.path.getsize(shot) < 10000:
        errors.append("the screenshot is suspiciously small")
    figs = probe["figs"]
    if no_figures:
        if figs:
            errors.append("%d figures without gnuplot" % len(figs))
        if "gnuplot-nox" not in probe["notice"]:
            errors.append("the page does not say which package adds the figures: %r" %
                          probe["notice"])
    else:
        if not figs:
            errors.append("no figure in the page")
        for f in figs:
            if not f["svg"]:
                errors.append("figure %s has no SVG" % f["id"])
            elif f["w"] < 100 or f["h"] < 60 or f["drawn"] < 5:
                errors.append("figure %s is empty (%gx%g px, %d drawn elements)" %
                              (f["id"], f["w"], f["h"], f["drawn"]))
        if probe["notice"]:
            errors.append("figures drawn, yet the page has a notice: %r" % probe["notice"])

    # Numbers: every metric of every benchmark of the document is in the page.
    tables = {t["bench"]: t for t in probe["tables"]}
    checked = 0
    if probe["benches"] != len(doc["benchmarks"]):
        errors.append("%d benchmark sections for %d benchmarks" %
                      (probe["benches"], len(doc["benchmarks"])))
    for b in doc["benchmarks"]:
        if not b["metrics"]:
            continue
        t = tables.get(b["name"])
        if t is None:
            errors.append("no metrics table for %s" % b["name"])
            continue
        if [r["metric"] for r in t["rows"]] != [m["name"] for m in b["metrics"]]:
            errors.append("%s: the page's metrics differ from the document's" % b["name"])
            continue
        for r, m in zip(t["rows"], b["metrics"]):
            what = "%s/%s" % (b["name"], m["name"])
            for e in (same_number(r["value"], m["value"], what),
                      same_number(r["limit"], m.get("limit"), what + " limit")):
                if e:
                    errors.append(e)
            if r["unit"] != m["unit"]:
                errors.append("%s: unit %r, the document has %r" % (what, r["unit"], m["unit"]))
            checked += 1
    if checked == 0:
        errors.append("no metric was checked")
    for e in errors:
        print("FAIL: " + e)
    print("%d figures, %d metrics checked, screenshot %s, %d problems" %
          (len(figs), checked, shot, len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
