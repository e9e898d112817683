"""What the campaign pages know of battles: the one thing the battles app registers here.

This app never imports the battles app (``combat``): combat registers a ``BattleSnapshots`` when it
starts (``combat.apps.CombatConfig.ready``), and the campaign pages ask it for the stored snapshots
of a campaign's battles (who the players have met, which battle still uses a homebrew entry).
Without a battles app there are no battles.
"""

from __future__ import annotations

from typing import Any, Protocol

Snapshot = tuple[str, dict[str, Any]]  # (the battle's name, its stored state)


class BattleSnapshots(Protocol):
    def __call__(self, campaign_id: int, *, begun: bool = False, running: bool = False) -> list[Snapshot]:
        """The campaign's battles (only those past their set-up with ``begun``, only those not over
        with ``running``), each as its name and its stored state."""
        ...


def _none(campaign_id: int, *, begun: bool = False, running: bool = False) -> list[Snapshot]:
    return []


_source: BattleSnapshots = _none


def register(source: BattleSnapshots) -> None:
    """Where the campaign pages read battles from (called once, by the battles app)."""
    global _source
    _source = source


def snapshots(campaign_id: int, *, begun: bool = False, running: bool = False) -> list[Snapshot]:
    return _source(campaign_id, begun=begun, running=running)
