"""The check-ins' and the journal's services, built from the shared ones at install: the
one place in this package that constructs stores and services."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from telegram.ext import ExtBot

from bot.content.locales import Locales
from bot.features.checkins.delivery import GRACE, Dispatcher, PassReport, concurrency_for, rate_for
from bot.features.checkins.journal import JournalService
from bot.features.checkins.policy import Sender
from bot.features.checkins.sender import CheckinSender, CountDay
from bot.framework.chat import keyboard
from bot.framework.context import Services
from bot.storage.deliveries import DeliveryStore
from bot.storage.journal import JournalStore
from bot.transport.metrics import Metrics
from bot.transport.send_outcome import JsonMessageSender


@dataclass(frozen=True)
class CheckinServices:
    journal: JournalService
    dispatcher: Dispatcher  # the pass that sends the check-ins that are due


def build(services: Services, count_day: CountDay | None) -> CheckinServices:
    """`count_day`: the no-contact count a check-in shows (the urge feature's)."""
    settings, db, clock, metrics = services.settings, services.db, services.clock, services.metrics
    deliveries = DeliveryStore(db)
    rate = rate_for(settings.paid_broadcast)
    dispatcher = Dispatcher(
        people=services.people,
        store=deliveries,
        prompts=services.content.prompts,
        clock=clock,
        sender=make_sender(
            services.main_bot,
            services.content.locales,
            count_day,
            paid_broadcast=settings.paid_broadcast,
        ),
        is_running=services.running,
        in_cover=services.cover.in_cover,
        # Paid broadcasts allow Telegram's higher rate: two replicas may send at once.
        leadership=db.leadership("dispatcher", slots=2 if settings.paid_broadcast else 1),
        send_rate=rate,
        concurrency=concurrency_for(rate),
        observe=lambda report: observe_pass(metrics, report),
    )
    journal = JournalService(JournalStore(db), deliveries, clock, services.keys)
    return CheckinServices(journal, dispatcher)


def make_sender(
    bot: ExtBot[Any],
    locales: Locales,
    count_day: CountDay | None = None,
    *,
    paid_broadcast: bool = False,
) -> Sender:
    """How the dispatcher sends one prompt: the check-in sender (sender.py) over the
    transport's JSON send, with the one keyboard builder the handlers use."""
    return CheckinSender(
        JsonMessageSender(bot),
        locales,
        lambda rows: keyboard(rows).to_dict(),
        count_day,
        paid_broadcast=paid_broadcast,
    )


def observe_pass(metrics: Metrics, report: PassReport) -> None:
    metrics.dispatcher_leader.set(0 if report.standby else 1)
    if report.standby:
        return
    metrics.due_depth.set(report.backlog)
    metrics.due_drain_seconds.set(report.drain_seconds)
    metrics.due_overrun.set(1 if report.drain_seconds > GRACE.total_seconds() else 0)
    for outcome, count in (
        ("sent", report.sent),
        ("skipped", report.skipped),
        ("failed", report.failed),
        ("blocked", report.blocked),
        ("unknown", report.unknown),
    ):
        if count:
            metrics.prompts.labels(outcome=outcome).inc(count)
