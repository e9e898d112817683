"""Small helpers shared by the services tests."""

from __future__ import annotations

import json
from typing import Any

from combat import services
from combat.models import Battle, BattleEvent


def normal(value: Any) -> Any:
    """A value as it looks after a JSON round trip (what the database stores)."""
    return json.loads(json.dumps(value))


def log_of(battle_id: int) -> list[tuple[int, str]]:
    return list(BattleEvent.objects.filter(battle_id=battle_id).order_by("seq").values_list("seq", "type"))


def fresh(battle_id: int) -> Battle:
    return Battle.objects.get(pk=battle_id)


def current_controller(battle: Battle, users: dict[str, Any]):
    """(combatant id, user who may act for it): its owner, or the GM for an NPC."""
    state = services.load_state(battle)
    current = state.current()
    assert current is not None
    by_id = {str(u.pk): u for u in users.values()}
    return current.id, by_id.get(current.controller, users["gm"])


def end_turn(battle: Battle, users: dict[str, Any], **kwargs) -> services.Result:
    actor, user = current_controller(battle, users)
    return services.submit_action(
        battle.pk, user, {"kind": "end_turn", "actor": actor, "params": {}}, battle.seq, **kwargs
    )


def before_veil(snapshot: Any) -> Any:
    """A snapshot as states were stored before they kept their past (``engine.veil``): without it."""
    out = normal(snapshot)
    out["extra"].pop("veil", None)
    return out


def assert_snapshot_is_log(battle_id: int, stored_before_veil: bool = False) -> None:
    """The stored snapshot equals a replay of the log (ENG-1), and seq agrees with the log; a snapshot
    ``stored_before_veil`` equals it but for the past the replay keeps."""
    battle = fresh(battle_id)
    log = log_of(battle_id)
    assert [seq for seq, _ in log] == list(range(1, len(log) + 1))
    assert battle.seq == len(log) == battle.snapshot["seq"]
    rebuilt = services.rebuild(battle_id).to_dict()
    assert (before_veil(rebuilt) if stored_before_veil else normal(rebuilt)) == normal(battle.snapshot)
