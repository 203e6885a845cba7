#!/usr/bin/env python3
"""Turns the figures `./dev reliability` collected (one JSON object per line) into the table of
docs/RELIABILITY.md."""
import json
import sys

runs = {}
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.strip()
    if not line:
        continue
    item = json.loads(line)
    runs.setdefault(item["test"], []).append(item)


def one(name):
    return runs.get(name, [{}])[-1]


crash = one("crash")
concurrency = one("concurrency")
fuzz = one("fuzz")
release = one("fuzz-release").get("run", {})
libfuzzer_runs = sum(item.get("runs", 0) for item in runs.get("libfuzzer", []))
hostile = sum(item.get("inputs", 0) for name, items in runs.items()
              if name.startswith("hostile") and not name.startswith("hostile-remote") for item in items)
disk = one("full-disk")
mid = one("full-disk-mid-write")
fsync = one("fsync")
release_total = release.get("total", 0)
lost = crash.get("changesLost", 0) + concurrency.get("missingFromHistory", 0)

cuts = one("network-cuts")
remote_hostile = sum(item.get("inputs", 0) for name in ("hostile-remote", "hostile-remote-corrupt", "stale-sync-locks")
                     for item in runs.get(name, []))
rows = [
    ("SIGKILLs survived (add, delete, import, merge, sync; fsync on)",
     f"{crash.get('kills', 0)} ({crash.get('killedAfterPublish', 0)} after main moved; "
     f"leftovers {crash.get('leftovers', {})}; next command without repair {crash.get('nextCommandWithoutRepair', 0)} times)"),
    ("Concurrent commands (writers x commands, with syncs and another device beside)",
     f"{concurrency.get('commands', 0)} by {concurrency.get('writers', 0)} processes in {concurrency.get('seconds', 0)} s, "
     f"{concurrency.get('failed', 0)} failed; beside them {concurrency.get('syncsBeside', 0)} syncs "
     f"({concurrency.get('syncsGaveUp', 0)} gave up with an error while main kept moving), "
     f"{concurrency.get('deviceAdds', 0)} adds on another device, {concurrency.get('gitStatusRunsBeside', 0)} git status runs"),
    ("Network cuts (git:// through a proxy that drops the connection)",
     f"{cuts.get('failedCleanly', 0)} syncs cut mid-fetch, mid-push or after the push failed cleanly, "
     f"{cuts.get('hangs', 0)} hung; the next sync worked each time"),
    ("Full disk", f"{disk.get('failedCleanly', 0)} writes refused cleanly of {disk.get('attempts', 0)} ({disk.get('method', '?')}); "
     f"{mid.get('failed', 0)} failed mid-write without the space check, {mid.get('publishedThenFinished', 0)} finished by the next command"),
    ("Fuzz inputs (seeded, release build)", f"{release_total:,}"),
    ("Fuzz inputs (seeded, in the test run)", f"{fuzz.get('total', 0):,}"),
    ("Fuzz inputs (libFuzzer, coverage-guided)", f"{libfuzzer_runs:,}"),
    ("Hostile inputs tried (explicit tests)", f"{hostile} local, {remote_hostile} from remotes"),
    ("fsync cost per add", f"{fsync.get('microsecondsPerAddFsyncOn', 0) / 1000:.1f} ms on, "
     f"{fsync.get('microsecondsPerAddFsyncOff', 0) / 1000:.1f} ms off ({fsync.get('filesystem', '?')}, {fsync.get('adds', 0)} adds)"),
    ("Changes lost", f"{lost}"),
]
print("| figure | last run |")
print("| --- | --- |")
for name, value in rows:
    print(f"| {name} | {value} |")
print()
print("seeds: " + ", ".join(f"{name} {one(name).get('seed')}" for name in ("crash", "concurrency", "fuzz") if one(name).get("seed")))
