#!/usr/bin/env python3
"""A deliberately broken Hub engine for the match runner's tests (standard library only).

It does the Hub handshake properly (hub -> id, param, wait; init -> ready) and then misbehaves
on every `go`, in the way named by its one argument:

  crash    prints a line to standard error and exits with status 3
  stall    never answers (ignores `stop` too)
  slow     answers only after 0.6 s (after the runner has sent `stop`), too late for its clock
  illegal  answers a move that is never legal (`done move=1-2`)
  garbage  answers a line that is not Hub syntax (an unterminated quote)
  nomove   answers a bare `done` although it has legal moves
  badstart exits during the handshake, before `wait`

It declares a string parameter `mode` and an integer parameter `weight` (0 to 10, unused), so
that the SPSA tuner can be run on it. When the environment variable BROKEN_ENGINE_LOG names a
file, every start (`hub`) appends a line to it, so that tests can count the processes started.
"""

import os
import sys
import time


def out(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "crash"
    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        cmd = words[0]
        if cmd == "hub":
            log = os.environ.get("BROKEN_ENGINE_LOG")
            if log:
                with open(log, "a") as f:
                    f.write("start\n")
            if mode == "badstart":
                sys.stderr.write("badstart: giving up\n")
                sys.exit(4)
            out('id name=Broken version=1 author="Damast tests" country=NL')
            out("param name=mode value=%s type=string" % mode)
            out("param name=weight value=5 type=int min=0 max=10")
            out("wait")
        elif cmd == "init":
            out("ready")
        elif cmd == "ping":
            out("pong")
        elif cmd == "quit":
            return
        elif cmd == "go":
            out("info depth=1 score=0.00")
            if mode == "crash":
                sys.stderr.write("broken engine: boom\n")
                sys.stderr.flush()
                sys.exit(3)
            elif mode == "stall":
                while True:
                    time.sleep(60)
            elif mode == "slow":
                time.sleep(0.6)
                out("done move=1-2")
            elif mode == "illegal":
                out("done move=1-2")
            elif mode == "garbage":
                out('done move="32-28')
            elif mode == "nomove":
                out("done")
        # pos, level, new-game, set-param, stop: nothing to do


if __name__ == "__main__":
    main()
