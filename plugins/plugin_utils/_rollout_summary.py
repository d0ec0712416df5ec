# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rollout's records and summary: each host's result (kubelet_numa_rollout_result) and the summary table.

The roll (roles/kubelet_numa_rollout/tasks/roll_host.yml) hands over what happened; these functions decide what it
means, and the summary play only shows their lines.
"""

from __future__ import annotations

from typing import Any

from ._rollout import flag
from ._rollout_budget import halt_reason

# What a failed step left behind, when the host was reachable (the role's rescue rolls an apply back).
_LEFT_AFTER_FAILED_STEP = {"drain": ", nothing applied", "apply": ", rolled back by the role"}
SUMMARY_HEADER = ("HOST", "PLATFORM", "NUMA SPLIT", "RESULT")
# The message of a host whose batch did not start, before the reason.
HALTED = "halted before its batch: "
MAX_FAILURES = "kubelet_numa_rollout_max_failures"


def result_text(record: dict[str, Any]) -> str:
    """The RESULT column of one host, from its kubelet_numa_rollout_result record ({} when the roll never reached it)."""
    if record.get("result") == "applied":
        return f"applied, {record.get('message', '')}"
    if record.get("result") == "failed":
        step = str(record.get("step", ""))
        left = ", unreachable (not rolled back)" if flag(record.get("unreachable")) else _LEFT_AFTER_FAILED_STEP.get(step, "")
        return f"FAILED at {step}{left}{', left cordoned' if flag(record.get('cordoned')) else ''}"
    if record.get("result") == "untouched":
        # Left alone on purpose: halted before its batch, or unavailable before the rollout (docs/rollout.md, "Budget and canary").
        return f"untouched, {record.get('message', '')}"
    return "untouched (not reached)"


def numa_split(reserved_memory: list[dict[str, Any]] | None) -> str:
    """The NUMA SPLIT column: the plan's reservedMemory as NODE=LIMIT pairs, or "-" for a host without a plan."""
    return " ".join(f"{entry['numaNode']}={entry['limits']['memory']}" for entry in reserved_memory or []) or "-"


def summary_lines(hosts: list[dict[str, Any]], skipped: dict[str, str] | None = None) -> list[str]:
    """The rollout's summary table, one line per host in the play's order, each column as wide as its longest cell;
    then one line per host that healed itself since the collection's last change.

    hosts: [{host, platform, reserved_memory, result, healed}]: the host's name, its plan's platform and reservedMemory
    ("" and [] without a plan), its kubelet_numa_rollout_result record ({} when not reached) and its self-heal text ("").
    skipped: the plan's hosts not rolled because their Node was unavailable before the rollout, with the reason.
    """
    rows = [SUMMARY_HEADER] + [
        (str(host["host"]), str(host.get("platform") or "-"), numa_split(host.get("reserved_memory")), result_text(_record_of(host, skipped or {})))
        for host in hosts
    ]
    widths = [max(len(row[column]) for row in rows) for column in range(len(SUMMARY_HEADER) - 1)]
    table = ["  ".join([*(row[column].ljust(width) for column, width in enumerate(widths)), row[-1]]) for row in rows]
    return table + [f"{host['host']}: {host['healed']}" for host in hosts if host.get("healed")]


def _record_of(host: dict[str, Any], skipped: dict[str, str]) -> dict[str, Any]:
    """The host's record; for a host the plan skipped and the roll never reached, why it was left alone."""
    record = host.get("result") or {}
    if not record and host["host"] in skipped:
        return untouched_record(f"unavailable before the rollout ({skipped[host['host']]})")
    return dict(record)


# -- Each host's record (kubelet_numa_rollout_result), as roll_host.yml keeps it -------------------------------------


def untouched_record(why: str) -> dict[str, Any]:
    """A host the rollout left exactly as it was, on purpose."""
    return {"result": "untouched", "message": why}


def halted_record(reason: str) -> dict[str, Any]:
    """A host whose batch did not start (_rollout_budget.halt_reason says why)."""
    return untouched_record(f"{HALTED}{reason}")


def rolled_record(decision: dict[str, Any], control_lost: list[list[Any]], control_host: str) -> dict[str, Any]:
    """A host whose roll ran to its end: applied, unless its control host was lost at a step (the first in
    control_lost, [step, that step's result]); then none of the steps after it ran.

    decision: the host's _rollout_resume.roll_decision (its message, what it resumed, a problem with its record).
    """
    if not control_lost:
        said = [decision.get("message"), decision.get("resumed"), decision.get("problem")]
        return {"result": "applied", "message": "; ".join(str(text) for text in said if text)}
    step, result = control_lost[0]
    lost = str((result or {}).get("msg") or "").strip()
    return {
        "result": "failed",
        "step": str(step),
        "unreachable": False,
        "cordoned": decision.get("owner") is not None,
        "message": f"the control host {control_host} could not be reached: {lost}",
    }


def failed_record(failure: dict[str, Any], decision: dict[str, Any], probe: dict[str, Any]) -> dict[str, Any]:
    """A host whose roll failed (the roll's rescue).

    failure: {step, reraised, result, inner}: the failed task's step (its __kubelet_numa_rollout_step), whether it
    raised a failure of the role or of verify again (then `inner` is that failure; else `result` is the task's own).
    probe: the rescue's ping of the host. A restart the node rolled back (transaction_failed) failed the apply,
    whichever step read its verdict; a drained host stays cordoned, a converged one was never cordoned.
    """
    result = (failure.get("inner") if flag(failure.get("reraised")) else failure.get("result")) or {}
    unreachable = flag(probe.get("unreachable"))
    if unreachable:
        message = f"unreachable: {str(probe.get('msg') or '').strip()}"
    else:
        message = str(result.get("stderr") or "").strip() or str(result.get("msg", "failed"))
    return {
        "result": "failed",
        "step": "apply" if flag(result.get("transaction_failed")) else str(failure.get("step") or ""),
        "unreachable": unreachable,
        "cordoned": decision.get("owner") is not None,
        "message": message,
    }


def with_halts(results: dict[str, dict[str, Any]], plan: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each host's record, and for a host of a batch the rollout halted before (which the roll left without a record),
    its halted_record: the roll's halt decided again, batch by batch, as roll_host.yml decided it before each batch
    (_rollout_budget.halt_reason with the hosts failed in the batches before). The roll does not record it itself, so
    that a halted host costs no task turn of its own there.

    results: each host's kubelet_numa_rollout_result ({} when the roll recorded none). plan: the _rollout_plan result
    ({} without the planning play: then nothing is worked out).
    """
    completed = {host: dict(record or {}) for host, record in results.items()}
    failed: list[str] = []
    for batch in plan.get("batches") or []:
        reason = halt_reason(plan, failed, list(batch))
        for host in batch:
            if reason and host in completed and not completed[host]:
                completed[host] = halted_record(reason)
        failed += [host for host in batch if completed.get(host, {}).get("result") == "failed"]
    return completed


def failure_lines(results: dict[str, dict[str, Any]], max_failures: int, canary: list[str]) -> dict[str, str]:
    """What the rollout's final failure says, per host: each failed host, and the halt when no failure caused it.

    results: each host's record in the play's order. A failed host within kubelet_numa_rollout_max_failures (not a
    canary) did not halt the rollout; the one past it, or a failed canary, did ("halted at"). A halt that no failure
    caused by itself (a failed host still unavailable would take a batch past the budget) is said once, at the
    first host it left untouched.
    """
    lines: dict[str, str] = {}
    allowed = 0
    for host, record in results.items():
        if record.get("result") != "failed":
            continue
        step, message = record.get("step", ""), record.get("message", "")
        if host not in canary and allowed < max_failures:
            allowed += 1
            lines[host] = (
                f"numa.kubelet.rollout: {host} failed at {step}, failure {allowed} of the {max_failures} that "
                f"{MAX_FAILURES} allows (the rollout did not halt at it): {message}"
            )
        else:
            lines[host] = f"numa.kubelet.rollout halted at {host} ({step}): {message}"
    halted = [host for host, record in results.items() if str(record.get("message", "")).startswith(HALTED)]
    if halted and not any(line.startswith("numa.kubelet.rollout halted") for line in lines.values()):
        lines[halted[0]] = f"numa.kubelet.rollout halted before {halted[0]}'s batch: {results[halted[0]]['message'][len(HALTED) :]}"
    return lines
