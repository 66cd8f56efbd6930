#!/usr/bin/env python3
"""Fails when the files of a crate import each other around a loop.

A file's imports are the modules its code names: `use` trees and paths
(`crate::…`, `super::…`, `self::…`, and a child module's name), each resolved
to the file of the deepest module it names. A file naming one of its
enclosing modules (its `super`, the crate root) is not importing: it uses the
room it is in. Test code is left out (files
declared under `#[cfg(test)]`, and a file's inline `#[cfg(test)] mod` at its
end). A loop of two or more files is a circle. CI runs this
(docs/architecture.md, "Layers and circles").

    python3 scripts/check-circles.py            # every crate under crates/
    python3 scripts/check-circles.py --list     # also print each file's imports
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

# Circles that are known and being removed, as sorted tuples of files with
# the reason. A circle listed here that no longer exists fails the check too.
KNOWN = {
    (
        "crates/persistence/src/levels.rs",
        "crates/persistence/src/orders/allocate.rs",
        "crates/persistence/src/orders/mod.rs",
        "crates/persistence/src/repositories/people.rs",
        "crates/persistence/src/returns/mod.rs",
        "crates/persistence/src/stock.rs",
    ): "the lifecycle's cascade still sequenced by the Diesel store (provisioning -> order, "
    "stock -> backorders -> levels, offboarding -> returns); it goes when the domain's "
    "workflows run it over the unit of work",
}

COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
STRING = re.compile(r'b?r(#*)".*?"\1|b?"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])\'', re.S)
MOD_DECL = re.compile(r"((?:#\[[^\]]*\]\s*)*)(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;")
USE = re.compile(r"\buse\s+([^;]+);")
PATH = re.compile(r"\b((?:crate|super|self|[a-z_][a-z0-9_]*)(?:\s*::\s*[A-Za-z_][A-Za-z0-9_]*)+)")


def clean(text):
    text = COMMENT.sub(" ", text)
    return STRING.sub('""', text)


def without_test_tail(text):
    """The text before an inline test module (`#[cfg(test)] mod x {`)."""
    m = re.search(r"#\[cfg\(test\)\]\s*(?:pub\s+)?mod\s+\w+\s*\{", text)
    return text[: m.start()] if m else text


class Module:
    def __init__(self, path, file, parent):
        self.path, self.file, self.parent = path, file, parent
        self.children = {}


def load_crate(src):
    """The crate's module tree from lib.rs (or main.rs), following `mod x;`."""
    top = os.path.join(src, "lib.rs")
    if not os.path.exists(top):
        top = os.path.join(src, "main.rs")
    root = Module((), top, None)
    todo = [root]
    while todo:
        mod = todo.pop()
        raw = open(mod.file, encoding="utf-8").read()
        text = clean(raw)
        here = os.path.dirname(mod.file)
        base = os.path.basename(mod.file)
        own_dir = here if base in ("lib.rs", "main.rs", "mod.rs") else os.path.join(here, base[:-3])
        for attrs, name in MOD_DECL.findall(text):
            if "cfg(test)" in attrs:
                continue
            pm = re.search(r'#\[path\s*=\s*"([^"]+)"\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+' + name + r"\s*;", raw)
            if pm:
                file = os.path.normpath(os.path.join(here if base in ("lib.rs", "main.rs", "mod.rs") else own_dir, pm.group(1)))
            else:
                file = os.path.join(own_dir, name + ".rs")
                if not os.path.exists(file):
                    file = os.path.join(own_dir, name, "mod.rs")
            if not os.path.exists(file):
                continue
            child = Module(mod.path + (name,), file, mod)
            mod.children[name] = child
            todo.append(child)
    return root


def expand_use(tree):
    """`a::{b, c::{d, e}}` -> ["a::b", "a::c::d", "a::c::e"]."""
    # `X as Y` names X; drop the rename before the spaces go.
    tree = re.sub(r"\s+as\s+\w+", "", tree)
    tree = re.sub(r"\s+", "", tree)
    out = []

    def walk(prefix, s):
        depth, start, parts = 0, 0, []
        for i, ch in enumerate(s):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                parts.append(s[start:i])
                start = i + 1
        parts.append(s[start:])
        for part in parts:
            if not part:
                continue
            if "{" in part:
                head, _, rest = part.partition("{")
                walk(prefix + head, rest[:-1] if rest.endswith("}") else rest)
            else:
                out.append(prefix + part)
    walk("", tree)
    return [p.rstrip(":") for p in out]


def resolve(mod, segments):
    """The module file the path names, or None when it leaves the crate."""
    node = mod
    segs = list(segments)
    if segs[0] == "crate":
        while node.parent:
            node = node.parent
        segs = segs[1:]
    else:
        while segs and segs[0] in ("super", "self"):
            if segs[0] == "super":
                node = node.parent
                if node is None:
                    return None
            segs = segs[1:]
        if segments[0] not in ("super", "self") and segments[0] not in mod.children:
            return None
    for seg in segs:
        if seg in node.children:
            node = node.children[seg]
        else:
            break
    return node.file


def imports(mod):
    raw = open(mod.file, encoding="utf-8").read()
    text = without_test_tail(clean(raw))
    found = set()
    # A file naming its enclosing modules (`super::…`, or the crate root's
    # items) uses the room it is in: not an import between rooms.
    ancestors, up = set(), mod.parent
    while up:
        ancestors.add(up.file)
        up = up.parent
    paths = []
    for tree in USE.findall(text):
        paths.extend(expand_use(tree))
    paths.extend(re.sub(r"\s+", "", p) for p in PATH.findall(text))
    for p in paths:
        segs = [s for s in p.split("::") if s]
        if not segs or segs[0] in ("std", "core", "alloc"):
            continue
        target = resolve(mod, segs)
        if target and target != mod.file and target not in ancestors:
            found.add(target)
    return found


def circles(graph):
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    sys.setrecursionlimit(10000)

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(tuple(sorted(comp)))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return out


def main():
    crates = os.path.join(ROOT, "crates")
    found = []
    for name in sorted(os.listdir(crates)):
        src = os.path.join(crates, name, "src")
        if not os.path.isdir(src):
            continue
        root = load_crate(src)
        graph, todo = {}, [root]
        while todo:
            mod = todo.pop()
            todo.extend(mod.children.values())
            rel = os.path.relpath(mod.file, ROOT)
            graph[rel] = {os.path.relpath(t, ROOT) for t in imports(mod)}
            if "--list" in sys.argv:
                print(rel, "->", ", ".join(sorted(graph[rel])) or "-")
        found.extend(circles(graph))
    fail = False
    for circle in found:
        if circle in KNOWN:
            print(f"known circle ({KNOWN[circle]}): {' <-> '.join(circle)}")
        else:
            print(f"import circle: {' <-> '.join(circle)}", file=sys.stderr)
            fail = True
    for circle in KNOWN:
        if circle not in found:
            print(f"circle no longer found, drop it from KNOWN: {circle}", file=sys.stderr)
            fail = True
    if fail:
        sys.exit(1)
    print(f"circles: ok (no file of a crate imports itself around a loop; {len(KNOWN)} known)")


main()
