"""How soon the console's first screen is usable: from the start of the
page's navigation to the overview's counts drawn (items by status and by
category, from `GET /api/v1/inventory-summary`; the `equip:first-screen`
performance mark), for a signed-in tab. The overview's other panels (joiners,
levels, returns) fill in after it, each on its own request.

Not a test: run by scripts/bench-console.sh, which builds a release binary and
prints the figures. The workload is what people open: the overview (the first screen after
signing in), each opened cold (a new browser context: nothing cached) and then
warm (reloaded), ten times a round.
"""

from __future__ import annotations

import json
import os
import statistics

VIEWS = ["#/overview"] * 10
ROUNDS = int(os.environ.get("EQUIP_BENCH_ROUNDS", "3"))


def first_screen(page) -> dict:
    """The mark, with where the time went: the page's own files, then the
    summary's API request."""
    page.wait_for_function("() => performance.getEntriesByName('equip:first-screen').length > 0", timeout=30_000)
    return page.evaluate(
        """() => {
        const nav = performance.getEntriesByType('navigation')[0];
        const api = performance.getEntriesByType('resource').find(r => r.name.includes('/api/v1/inventory-summary'));
        return {
          screen: performance.getEntriesByName('equip:first-screen')[0].startTime,
          page: nav.responseEnd,
          paint: (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime ?? null,
          apiStart: api ? api.startTime : null,
          api: api ? api.responseEnd - api.startTime : null,
        };
      }"""
    )


def test_first_screen(server, browser):
    status, info = server.api("GET", "/api/v1/api-key")
    assert status == 200
    setup = (
        "sessionStorage.setItem('equip.key', %s); sessionStorage.setItem('equip.keyInfo', %s);"
        % (json.dumps(server.keys["all"]), json.dumps(json.dumps(info)))
    )
    cold, warm = [], []
    for _ in range(ROUNDS):
        for view in VIEWS:
            context = browser.new_context(viewport={"width": 1280, "height": 860})
            context.add_init_script(setup)
            page = context.new_page()
            page.goto(f"{server.base}/console/{view}")
            cold.append(first_screen(page))
            page.reload()
            warm.append(first_screen(page))
            context.close()
    def summary(runs):
        xs = sorted(r["screen"] for r in runs)
        return {
            "n": len(xs),
            "median_ms": round(statistics.median(xs), 1),
            "p90_ms": round(xs[int(0.9 * (len(xs) - 1))], 1),
            "max_ms": round(xs[-1], 1),
            # Medians of the parts: the page's HTML received, the summary's
            # request sent (all modules loaded and run), the request's time.
            "html_ms": round(statistics.median(r["page"] for r in runs), 1),
            # The browser's first paint of anything (the sign-in frame): its
            # own floor on this machine, before any data.
            "first_paint_ms": round(statistics.median(r["paint"] for r in runs if r["paint"] is not None), 1),
            "api_sent_ms": round(statistics.median(r["apiStart"] for r in runs if r["apiStart"] is not None), 1),
            "api_ms": round(statistics.median(r["api"] for r in runs if r["api"] is not None), 1),
        }
    result = {"backend": server.backend, "cold": summary(cold), "warm": summary(warm)}
    print("\nFIRST-SCREEN " + json.dumps(result))
    out = os.environ.get("EQUIP_BENCH_OUT")
    if out:
        with open(out, "a", encoding="utf-8") as f:
            f.write(json.dumps(result) + "\n")
