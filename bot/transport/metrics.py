"""What a replica tells Prometheus (`GET /metrics`): counts and latencies, never a person.

No label carries anything about who: update outcomes, crisis kinds, prompt outcomes, and
the due queue's depth with when it would overrun the grace window. One set per replica
(not the library's global registry), so tests can run several in one process.

The counts are plain numbers kept here, from the first update on; prometheus-client loads
only when a page is asked for (`render`, webhook mode's `/metrics`), and builds it from
them: its import was a few hundredths of a second of every start's first poll (issue 25),
for a page a polling replica never serves.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prometheus_client.metrics_core import Metric

_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_LOCK = threading.Lock()  # the check-ins' threads and the loop count side by side


class Value:
    """One series: a count that only grows (`inc`), or a gauge's level (`set`)."""

    def __init__(self) -> None:
        self.value = 0.0

    def inc(self, amount: float = 1.0) -> None:
        with _LOCK:
            self.value += amount

    def set(self, value: float) -> None:
        self.value = float(value)


class Counter:
    def __init__(self, name: str, documentation: str, label: str) -> None:
        self.name, self.documentation, self.label = name, documentation, label
        self.series: dict[str, Value] = {}

    def labels(self, **labels: str) -> Value:
        (value,) = labels.values()  # the one label this counter was made with
        found = self.series.get(value)
        if found is None:
            with _LOCK:
                found = self.series.setdefault(value, Value())
        return found


class Gauge(Value):
    def __init__(self, name: str, documentation: str) -> None:
        super().__init__()
        self.name, self.documentation = name, documentation


class Histogram:
    def __init__(self, name: str, documentation: str, buckets: tuple[float, ...]) -> None:
        self.name, self.documentation, self.buckets = name, documentation, buckets
        self.counts = [0] * (len(buckets) + 1)  # the last one: above every bucket (+Inf)
        self.sum = 0.0

    def observe(self, amount: float) -> None:
        at = next((i for i, bound in enumerate(self.buckets) if amount <= bound), -1)
        with _LOCK:
            self.counts[at] += 1
            self.sum += amount


class Metrics:
    def __init__(self) -> None:
        self.updates = Counter(
            "steady_updates",
            "Webhook updates by outcome (handled, duplicate, failed, rejected, unparsable)",
            "outcome",
        )
        self.update_seconds = Histogram(
            "steady_update_seconds",
            "From a webhook POST arriving to its answer (the update fully handled)",
            _LATENCY_BUCKETS,
        )
        self.crisis_replies = Counter(
            "steady_crisis_replies", "Crisis replies sent, by kind", "kind"
        )
        self.prompts = Counter(
            "steady_prompts",
            "Daily prompts by outcome (sent, skipped, late, failed, blocked, unknown)",
            "outcome",
        )
        self.due_depth = Gauge(
            "steady_due_queue_depth", "People whose prompt is due now and not yet sent"
        )
        self.due_drain_seconds = Gauge(
            "steady_due_queue_drain_seconds",
            "How long the due queue takes at the send rate; above the grace window, people"
            " at its end are skipped",
        )
        self.due_overrun = Gauge(
            "steady_due_queue_overruns_grace",
            "1 while the due queue would outlast the grace window",
        )
        self.dispatcher_leader = Gauge(
            "steady_dispatcher_leader", "1 on the replica holding the dispatcher's lock"
        )

    def render(self) -> bytes:
        """The page in Prometheus's text format, as of now."""
        from prometheus_client import CollectorRegistry, generate_latest  # noqa: PLC0415
        from prometheus_client.registry import Collector  # noqa: PLC0415

        families = self._families()

        class Now(Collector):
            def collect(self) -> Iterator[Metric]:
                return iter(families)

        registry = CollectorRegistry(auto_describe=False)
        registry.register(Now())
        return generate_latest(registry)

    def _families(self) -> list[Metric]:
        from prometheus_client.core import (  # noqa: PLC0415
            CounterMetricFamily,
            GaugeMetricFamily,
            HistogramMetricFamily,
        )

        families: list[Metric] = []
        with _LOCK:  # one moment's figures
            for counter in (self.updates, self.crisis_replies, self.prompts):
                family = CounterMetricFamily(
                    counter.name, counter.documentation, labels=[counter.label]
                )
                for value, series in sorted(counter.series.items()):
                    family.add_metric([value], series.value)
                families.append(family)
            for gauge in (
                self.due_depth,
                self.due_drain_seconds,
                self.due_overrun,
                self.dispatcher_leader,
            ):
                families.append(
                    GaugeMetricFamily(gauge.name, gauge.documentation, value=gauge.value)
                )
            latency = self.update_seconds
            bounds = [*(str(bound) for bound in latency.buckets), "+Inf"]
            running, cumulative = 0, []
            for bound, count in zip(bounds, latency.counts, strict=True):
                running += count
                cumulative.append((bound, float(running)))
            histogram = HistogramMetricFamily(
                latency.name, latency.documentation, buckets=cumulative, sum_value=latency.sum
            )
        return [*families, histogram]
