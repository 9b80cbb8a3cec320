"""Every scheduled job, run once by hand: tests that hold "whatever a job sends" (in the
person's language, never in cover) walk them all through here, so a job added later is
either covered or fails `run_every_job` until it is listed."""

from __future__ import annotations

from bot.features.checkins.handlers import JOB_NAME as DAILY_JOB
from bot.features.urge.handlers import JOB_NAME as URGE_JOB
from tests.helpers.bot import BotUnderTest

# The sweep only deletes; it is run all the same (it must send nothing either).
KNOWN_JOBS = frozenset({DAILY_JOB, URGE_JOB, "self_removal_sweep"})


def pause_every_job(bot: BotUnderTest) -> None:
    assert bot.runtime is not None
    for job in bot.runtime.jobs.values():
        job.enabled = False  # the test decides when a pass runs


async def run_every_job(bot: BotUnderTest) -> None:
    await bot.settle()
    runtime = bot.runtime
    assert runtime is not None and runtime.app is not None
    assert set(runtime.jobs) == KNOWN_JOBS, "a new scheduled job: list it in tests/helpers/jobs.py"
    pause_every_job(bot)
    for name, job in runtime.jobs.items():
        if name == DAILY_JOB:  # its tick only starts a pass in the background
            await bot.dispatcher.run_once()
        else:
            await job.run(runtime.app)
    await bot.settle()
