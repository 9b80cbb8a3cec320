"""What `python -m bot` does before its first getUpdates (issue 25): no collection while the
bot's modules import, and nothing imported that the first poll does not need."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# `python -m bot --help`, run the way `-m` runs it, counting the collector's passes while
# bot/__main__.py runs (its imports, then argparse's exit); runpy's own before it are not
# the bot's.
_PROBE = """
import gc, os, runpy, sys
passes = []
def seen(phase, info):
    frame = sys._getframe()
    while frame is not None and phase == "start":
        if frame.f_code.co_filename.endswith(os.path.join("bot", "__main__.py")):
            passes.append(info["generation"])
            return
        frame = frame.f_back
gc.callbacks.append(seen)
sys.argv = ["bot", "--help"]
try:
    runpy.run_module("bot", run_name="__main__", alter_sys=True)
except SystemExit:
    pass
print(len(passes), sorted({"PIL", "prometheus_client"} & set(sys.modules)), file=sys.stderr)
"""


def test_python_m_bot_imports_with_the_collector_off() -> None:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE], cwd=ROOT, capture_output=True, text=True, check=True
    )
    passes, _, unneeded = out.stderr.strip().partition(" ")
    assert passes == "0"  # the imports make a hundred thousand objects: dozens of passes
    assert unneeded == "[]"


def test_a_command_other_than_serving_turns_the_collector_on_again() -> None:
    probe = (
        "import gc, runpy, sys\n"
        "sys.argv = ['bot', 'content', 'check', '--dir', '/nonexistent-steady-content']\n"
        "import bot.__main__ as cli\n"  # as a module here: the collector stays as it was
        "gc.disable()\n"
        "cli.main(sys.argv[1:])\n"
        "print(gc.isenabled(), file=sys.stderr)\n"
    )
    run = [sys.executable, "-c", probe]
    out = subprocess.run(run, check=False, cwd=ROOT, capture_output=True, text=True)  # exit 1
    assert out.stderr.strip().splitlines()[-1] == "True"


def test_serving_imports_neither_argparse_nor_photo_nor_metrics_libraries() -> None:
    """What `python -m bot` (serving) has imported up to its first poll, told apart from
    what only other commands, photos or the metrics page need."""
    probe = (
        "import sys, bot.__main__, bot.runtime, bot.app\n"
        "print(sorted({'argparse', 'PIL', 'prometheus_client'} & set(sys.modules)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
