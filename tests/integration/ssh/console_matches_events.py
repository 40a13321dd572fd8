#!/usr/bin/env python3
"""Checks a `medsynth run` transcript against the run's events.jsonl: world
size 2, a finished run, and exactly the metric events printed (as
"step S/T  NAME = VALUE", VALUE with 6 significant digits), none lost or
repeated. Usage: console_matches_events.py EVENTS.jsonl CONSOLE.out"""
import json
import sys

events = [json.loads(line) for line in open(sys.argv[1])]
started = [e for e in events if e["type"] == "run_started"]
if not started or started[0]["world_size"] != 2:
    sys.exit(f"run_started world_size is not 2: {started[:1]}")
if not any(e["type"] == "run_finished" for e in events):
    sys.exit("events.jsonl has no run_finished")
total = started[0]["total_steps"]
expected = sorted("step {}/{}  {} = {:.6g}".format(e["step"], total, e["name"], e["value"]) for e in events if e["type"] == "metric")
printed = sorted(line.rstrip("\n") for line in open(sys.argv[2]) if line.startswith("step "))
if printed != expected:
    diff = sorted(set(printed) ^ set(expected))[:3]
    sys.exit(f"console printed {len(printed)} metric lines, events.jsonl has {len(expected)}; differences: {diff}")
print(f"world size 2; the console printed all {len(printed)} metric events of events.jsonl, once each")
