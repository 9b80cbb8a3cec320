"""What a replica tells Prometheus (`GET /metrics`): counts and latencies, never a person.

No label carries anything about who: update outcomes, crisis kinds, prompt outcomes, and
the due queue's depth with when it would overrun the grace window. One registry per
replica (not the library's global one), so tests can run several in one process.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

CONTENT_TYPE = CONTENT_TYPE_LATEST
_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.updates = Counter(
            "steady_updates",
            "Webhook updates by outcome (handled, duplicate, rejected, unparsable)",
            ["outcome"],
            registry=r,
        )
        self.update_seconds = Histogram(
            "steady_update_seconds",
            "From a webhook POST arriving to its answer (the update fully handled)",
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        self.crisis_replies = Counter(
            "steady_crisis_replies", "Crisis replies sent, by kind", ["kind"], registry=r
        )
        self.prompts = Counter(
            "steady_prompts",
            "Daily prompts by outcome (sent, skipped, late, failed, blocked, unknown)",
            ["outcome"],
            registry=r,
        )
        self.due_depth = Gauge(
            "steady_due_queue_depth", "People whose prompt is due now and not yet sent", registry=r
        )
        self.due_drain_seconds = Gauge(
            "steady_due_queue_drain_seconds",
            "How long the due queue takes at the send rate; above the grace window, people"
            " at its end are skipped",
            registry=r,
        )
        self.due_overrun = Gauge(
            "steady_due_queue_overruns_grace",
            "1 while the due queue would outlast the grace window",
            registry=r,
        )
        self.dispatcher_leader = Gauge(
            "steady_dispatcher_leader", "1 on the replica holding the dispatcher's lock", registry=r
        )

    def render(self) -> bytes:
        return generate_latest(self.registry)
