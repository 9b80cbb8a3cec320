"""The replica's counts: plain numbers from the first update, and the page Prometheus reads
built from them only when asked (prometheus-client is not imported before then)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from bot.transport.metrics import Metrics

ROOT = Path(__file__).resolve().parents[3]


def _samples(page: bytes) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(page.decode())
        for sample in family.samples
    }


def test_the_page_holds_every_count_made_before_it_was_asked_for() -> None:
    metrics = Metrics()
    metrics.updates.labels(outcome="handled").inc()
    metrics.updates.labels(outcome="handled").inc()
    metrics.updates.labels(outcome="duplicate").inc()
    metrics.prompts.labels(outcome="sent").inc(5)
    metrics.crisis_replies.labels(kind="danger").inc()
    metrics.due_depth.set(12)
    metrics.dispatcher_leader.set(1)
    for seconds in (0.004, 0.02, 0.02, 3.0, 60.0):
        metrics.update_seconds.observe(seconds)
    got = _samples(metrics.render())
    assert got[("steady_updates_total", (("outcome", "handled"),))] == 2
    assert got[("steady_updates_total", (("outcome", "duplicate"),))] == 1
    assert got[("steady_prompts_total", (("outcome", "sent"),))] == 5
    assert got[("steady_crisis_replies_total", (("kind", "danger"),))] == 1
    assert got[("steady_due_queue_depth", ())] == 12
    assert got[("steady_dispatcher_leader", ())] == 1
    assert got[("steady_due_queue_overruns_grace", ())] == 0
    # Buckets count what is at or under them, as Prometheus's own histogram does.
    assert got[("steady_update_seconds_bucket", (("le", "0.005"),))] == 1
    assert got[("steady_update_seconds_bucket", (("le", "0.025"),))] == 3
    assert got[("steady_update_seconds_bucket", (("le", "2.5"),))] == 3
    assert got[("steady_update_seconds_bucket", (("le", "5.0"),))] == 4
    assert got[("steady_update_seconds_bucket", (("le", "+Inf"),))] == 5
    assert got[("steady_update_seconds_count", ())] == 5
    assert abs(got[("steady_update_seconds_sum", ())] - 63.044) < 1e-9


def test_two_replicas_in_one_process_count_apart() -> None:
    one, other = Metrics(), Metrics()
    one.crisis_replies.labels(kind="danger").inc()
    assert one.crisis_replies.labels(kind="danger").value == 1
    assert other.crisis_replies.labels(kind="danger").value == 0
    assert _samples(other.render())[("steady_crisis_replies_total", (("kind", "danger"),))] == 0


def test_counting_loads_no_prometheus_client() -> None:
    probe = (
        "import sys\n"
        "from bot.transport.metrics import Metrics\n"
        "m = Metrics(); m.updates.labels(outcome='handled').inc(); m.due_depth.set(3)\n"
        "m.update_seconds.observe(0.1)\n"
        "print('prometheus_client' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"
