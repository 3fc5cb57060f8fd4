#!/usr/bin/env python3
"""Checks an audit page as a browser built it (`chromium --dump-dom`), as a
person would read it: the page's text holds every step the JSON trace
names (with its item) and every answer field and value, every link stays
in the page and lands on an anchor, and nothing is loaded from outside.

    check.py DOM.html TRACE.json

TRACE.json is the `{"answer", "trace"}` line of `bareme eval --trace json`
for the same case. Standard library only. Exit 0 when the page holds it
all, 1 with each thing missing.
"""

import json
import sys
from html.parser import HTMLParser


class Page(HTMLParser):
    """The text a reader sees, the ids, the links and what would load."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.text = []
        self.ids = set()
        self.links = []
        self.loads = []
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("style", "script"):
            self.skip += 1
        if tag in ("script", "img", "iframe", "link", "object", "embed"):
            self.loads.append(tag)
        for name, value in attrs:
            if name == "id":
                self.ids.add(value)
            if name == "href":
                self.links.append(value or "")
            if name in ("src", "srcset", "action", "formaction", "poster"):
                self.loads.append(f"{tag} {name}={value}")

    def handle_endtag(self, tag):
        if tag in ("style", "script") and self.skip:
            self.skip -= 1

    def handle_data(self, data):
        if not self.skip:
            self.text.append(data)


def leaves(value):
    """Every key and scalar of an answer, as its page writes them."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from leaves(item)
    elif isinstance(value, str):
        yield value
    elif isinstance(value, bool):
        yield "true" if value else "false"
    elif value is None:
        yield "null"
    else:
        yield json.dumps(value)


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[4].strip(), file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        dom = f.read()
    with open(sys.argv[2], encoding="utf-8") as f:
        line = json.loads(f.read())
    page = Page()
    page.feed(dom)
    text = "".join(page.text)
    missing = []
    steps = [e for e in line["trace"]["events"] if e["event"] == "step"]
    for e in steps:
        name = e["step"]
        if name not in text:
            missing.append(f"step {name}")
        if "item" in e and e["item"] not in text:
            missing.append(f"item {e['item']}")
    answer = line.get("answer")
    if answer is None:
        error = line.get("error", {})
        for part in (error.get("path", ""), error.get("message", "")):
            if part not in text:
                missing.append(f"rejection {part!r}")
    else:
        for part in leaves(answer):
            if part not in text:
                missing.append(f"answer {part!r}")
    for link in page.links:
        if not link.startswith("#"):
            missing.append(f"a link out of the page: {link!r}")
        elif link[1:] not in page.ids:
            missing.append(f"a link to no anchor: {link!r}")
    for load in page.loads:
        missing.append(f"something loaded: {load}")
    for bad in ("http:", "https:", "//"):
        if bad in dom:
            missing.append(f"the page holds {bad!r}")
    for m in missing[:20]:
        print(f"{sys.argv[1]}: {m}", file=sys.stderr)
    if len(missing) > 20:
        print(f"{sys.argv[1]}: … {len(missing) - 20} more", file=sys.stderr)
    if missing:
        return 1
    print(f"{sys.argv[1]}: {len(steps)} steps and the answer shown, {len(page.links)} links in the page")
    return 0


if __name__ == "__main__":
    sys.exit(main())
