"""What the HTTP benchmark scripts share: finding osrm-routed, a free port, waiting for a server,
and a process's memory from /proc."""
import glob
import os
import shutil
import socket
import time
import urllib.request


def osrm_bin():
    """Where osrm-routed is: $OSRM_BIN, the osrm-bindings package under pyenv's Python 3.12, or PATH."""
    if os.environ.get("OSRM_BIN"):
        return os.environ["OSRM_BIN"]
    found = glob.glob(os.path.expanduser("~/.pyenv/versions/3.12*/lib/python3.12/site-packages/osrm/bin"))
    if found:
        return found[0]
    routed = shutil.which("osrm-routed")
    if routed:
        return os.path.dirname(routed)
    raise SystemExit("osrm-routed not found: PYENV_VERSION=3.12.1 python3.12 -m pip install osrm-bindings, or set OSRM_BIN")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(url, timeout=120):
    """Waits until `url` answers (any server: the first request that succeeds)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return
        except Exception:
            time.sleep(0.2)
    raise SystemExit(f"{url} did not answer within {timeout} s")


def status_kb(pid, field):
    """A /proc/PID/status field in kB: VmRSS (now), VmHWM (peak)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0
