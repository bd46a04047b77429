#!/usr/bin/env python3
"""Alternating rounds of `osmium cat -f opl` and two `waymark build`s on one PBF.

    python3 Tools/build_rounds.py --pbf porto-4x4.osm.pbf --old OLD/waymark --new .build/release/waymark --rounds 5

Each round runs osmium, then the old build, then the new one (each under /usr/bin/time). For the
builds it also reports when reading ended (the build runs without --quiet and the time of its
100 % progress line is taken) and the build report's `build_seconds`: reading and the graph, up to
the graph in memory (before the snap index, the guidance tables and writing). Prints one line per
command: wall and CPU (user + system) seconds, peak RSS in MB and, for builds, those two times.
"""
import argparse
import os
import subprocess
import tempfile
import time


def timed(cmd, watch_progress):
    start = time.time()
    process = subprocess.Popen(["/usr/bin/time", "-f", "%U %S %M"] + cmd, stderr=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    read, lines = None, []
    for line in process.stderr:
        if watch_progress and read is None and "100%" in line:
            read = time.time() - start
        lines.append(line.strip())
    report = process.stdout.read()
    process.wait()
    wall = time.time() - start
    # The last line is /usr/bin/time's (after its "Command exited with …" on failure); before
    # them, the command's own error.
    if process.returncode != 0 or not lines:
        own = [line for line in lines[:-1] if not line.startswith("Command exited")]
        reason = own[-1] if own else "no output"
        raise SystemExit(f"{' '.join(cmd)} failed: {reason}")
    user, system, peak_kb = lines[-1].split()
    graph = next((float(line.split()[1]) for line in report.splitlines() if line.startswith("build_seconds")), None)
    return wall, float(user) + float(system), int(peak_kb) / 1024, read, graph


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pbf", required=True)
    parser.add_argument("--old", required=True, help="the waymark executable to compare against")
    parser.add_argument("--new", required=True, help="the waymark executable measured")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.rounds):
            wall, cpu, rss, _, _ = timed(["osmium", "cat", args.pbf, "-o", "/dev/null", "-f", "opl", "-O"], False)
            print(f"osmium wall {wall:.2f} cpu {cpu:.2f} rss {rss:.0f}", flush=True)
            for name, binary in (("old", args.old), ("new", args.new)):
                wall, cpu, rss, read, graph = timed([binary, "build", args.pbf, "-o", os.path.join(tmp, name + ".wmg")], True)
                reading = f" read {read:.2f}" if read is not None else " read ?"  # no 100 % line seen
                graphed = f" graph {graph:.2f}" if graph is not None else " graph ?"  # no build report
                print(f"{name} wall {wall:.2f} cpu {cpu:.2f} rss {rss:.0f}{reading}{graphed}", flush=True)


if __name__ == "__main__":
    main()
