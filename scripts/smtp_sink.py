"""A real SMTP server for equip's tests (aiosmtpd).

Every accepted message is written to DIR as <n>.eml (the raw message) and
<n>.json (envelope: mail_from, rcpt_tos), n counting from 1; the .json is
written last, so a reader that sees it sees the whole message.

  --refuse N   answer the first N DATA commands with 451 (transient failure)
  --reject     answer every DATA command with 550 (permanent failure)

Prints "READY <port>" once listening, and exits when standard input closes
(so it dies with the test process that started it).
"""

import argparse
import json
import os
import socket
import sys
import threading

from aiosmtpd.controller import Controller


class Sink:
    def __init__(self, directory, refuse, reject):
        self.directory = directory
        self.refuse = refuse
        self.reject = reject
        self.count = 0
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            if self.reject:
                return "550 5.7.1 Rejected by the test sink"
            if self.refuse > 0:
                self.refuse -= 1
                return "451 4.3.0 Try again later"
            self.count += 1
            n = self.count
        raw = envelope.original_content or envelope.content
        if isinstance(raw, str):
            raw = raw.encode("utf-8")
        with open(os.path.join(self.directory, f"{n}.eml"), "wb") as f:
            f.write(raw)
        tmp = os.path.join(self.directory, f".{n}.json.tmp")
        with open(tmp, "w") as f:
            json.dump({"mail_from": envelope.mail_from, "rcpt_tos": envelope.rcpt_tos}, f)
        os.rename(tmp, os.path.join(self.directory, f"{n}.json"))
        return "250 2.0.0 OK"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--refuse", type=int, default=0)
    parser.add_argument("--reject", action="store_true")
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    controller = Controller(
        Sink(args.dir, args.refuse, args.reject), hostname="127.0.0.1", port=free_port()
    )
    controller.start()
    print(f"READY {controller.port}", flush=True)
    try:
        sys.stdin.read()
    finally:
        controller.stop()


if __name__ == "__main__":
    main()
