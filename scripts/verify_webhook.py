"""Verifies webhook deliveries of equip with the verifier libraries a
receiver would use, running the snippets docs/webhooks.md prints (the
Python blocks after `<!-- snippet:stripe -->` and
`<!-- snippet:standard-webhooks -->`), so that what the docs show is what is
tested.

Standard input: {"body": "<the exact body, a UTF-8 text>", "headers": {name:
value, ...}, "secrets": {label: "whsec_...", ...}}. Standard output: {label:
{"stripe": true|false, "standard-webhooks": true|false}, ...}: whether each
library accepted the delivery under that secret (a snippet that raises
refused it). Exit status 1 when a snippet cannot be found.
"""
import json
import pathlib
import re
import sys

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs" / "webhooks.md"


class Headers(dict):
    """Request headers, looked up by name whatever its case (as a web
    framework's request headers are)."""

    def __init__(self, items):
        super().__init__((k.lower(), v) for k, v in items.items())

    def __getitem__(self, name):
        return super().__getitem__(name.lower())

    def get(self, name, default=None):
        return super().get(name.lower(), default)


def snippet(name):
    text = DOCS.read_text()
    m = re.search(
        r"<!-- snippet:" + re.escape(name) + r" -->\s*```python\n(.*?)```", text, re.S
    )
    if not m:
        sys.exit(f"no <!-- snippet:{name} --> python block in {DOCS}")
    return m.group(1)


def accepts(code, body, headers, secret):
    try:
        exec(code, {"body": body, "headers": Headers(headers), "secret": secret})  # noqa: S102
    except Exception:  # noqa: BLE001 - any failure is a refusal
        return False
    return True


def main():
    given = json.load(sys.stdin)
    body = given["body"].encode("utf-8")
    snippets = {name: snippet(name) for name in ("stripe", "standard-webhooks")}
    result = {
        label: {
            name: accepts(code, body, given["headers"], secret)
            for name, code in snippets.items()
        }
        for label, secret in given["secrets"].items()
    }
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
