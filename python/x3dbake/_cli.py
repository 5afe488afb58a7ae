"""The ``x3dbake`` command: the real command-line binary shipped in this
package (``x3dbake/bin/``), run with the arguments given, so that it
behaves as the one ``cargo install`` gives (its exit codes, signals,
messages and files)."""

from __future__ import annotations

import os
import subprocess
import sys


def binary() -> str:
    """The path of the command-line binary in this package."""
    name = "x3dbake.exe" if os.name == "nt" else "x3dbake"
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", name)


def main() -> None:
    exe = binary()
    if not os.path.isfile(exe):
        sys.stderr.write(f"error: the x3dbake binary is missing from the package ({exe})\n")
        sys.exit(2)
    args = sys.argv[1:]
    if os.name == "nt":
        # No exec on Windows: run it, wait (Ctrl-C reaches it too), and
        # exit with its code.
        proc = subprocess.Popen([exe, *args])
        while True:
            try:
                sys.exit(proc.wait())
            except KeyboardInterrupt:
                continue
    sys.stdout.flush()
    sys.stderr.flush()
    # The program's own name as clap shows it in usage lines.
    os.execv(exe, ["x3dbake", *args])


if __name__ == "__main__":
    main()
