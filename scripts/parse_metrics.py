"""Reads a metrics exposition (`GET /metrics` of `equip serve`) on standard
input with the Prometheus client library's parsers and prints its samples as
JSON: [{"family", "type", "name", "labels", "value"}, ...].

The OpenMetrics parser is strict (it raises on any departure from the
format, a missing `# EOF` among them); the classic Prometheus text parser
must read the same text without error too. Exit status 1 with the parser's
message when either fails.
"""
import json
import sys

from prometheus_client.openmetrics.parser import (
    text_string_to_metric_families as openmetrics_families,
)
from prometheus_client.parser import text_string_to_metric_families as text_families


def main():
    text = sys.stdin.read()
    try:
        families = list(openmetrics_families(text))
        # The classic parser, on the same text minus nothing: it must not fail.
        list(text_families(text))
    except Exception as e:  # noqa: BLE001 - report any parser failure
        print(f"parse error: {e!r}", file=sys.stderr)
        sys.exit(1)
    samples = [
        {
            "family": f.name,
            "type": f.type,
            "name": s.name,
            "labels": s.labels,
            "value": s.value,
        }
        for f in families
        for s in f.samples
    ]
    json.dump(samples, sys.stdout)


if __name__ == "__main__":
    main()
