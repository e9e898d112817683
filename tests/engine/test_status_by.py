"""``status.applied`` names who applied a status one way: ``by`` (a combatant id, or "gm"); what caused it is
named like the action parameters (``ability``, ``item``, ``object``). Logs and snapshots stored before named the applier ``by_id``, ``by_combatant`` or ``source``:
they replay, undo and read with today's name."""

from __future__ import annotations

from combat.engine.actions import Action, Refusal
from combat.engine.context import apply_event
from combat.engine.core import replay, resolve, undo_cut
from combat.engine.dice import ScriptedDice
from combat.engine.events import Event
from combat.engine.rulesets import get_ruleset
from combat.engine.state import BattleState, Combatant, status_fields
from tests.stored_logs import as_stored, stored_log


def test_an_action_block_grapple_stored_with_by_id_replays_reads_and_breaks_free():
    """Ash grappled the Orc (``by_id`` in the log and in the snapshot); it is the Orc's turn."""
    # RULE: ENG-1
    # RULE: ENG-8
    log, snapshot = stored_log("block_log_before_status_by.json")
    assert snapshot["combatants"]["c2"]["statuses"]["grappled"]["by_id"] == "c1"  # as recorded
    state = replay(log)
    read = BattleState.from_dict(snapshot)  # the old snapshot, read today
    assert as_stored(state.to_dict()) == read.to_dict()  # all but the past the replay keeps
    assert state.combatants["c2"].statuses["grappled"] == {"power": 0, "duration": 1, "by": "c1"}
    # the Orc breaks free from the old snapshot: the holder is found through ``by`` (Ash's evasion, 7)
    out = resolve(read, Action("break_free", "c2", {}), ScriptedDice([3, 3]))
    assert not isinstance(out, Refusal), out
    attempt = next(e for e in out[0] if e.type == "grapple.break_attempted")
    assert (attempt.data["evasion"], attempt.data["freed"]) == (7, False)
    out = resolve(read, Action("break_free", "c2", {}), ScriptedDice([4, 4]))
    assert not isinstance(out, Refusal), out
    freed = out[1]
    assert (
        "grappled" not in freed.combatants["c2"].statuses
        and "grappling" not in freed.combatants["c1"].statuses
    )
    # undo takes back Ash's end of turn, then the answered dodge that let the grapple land, on the old log
    cut = undo_cut(log)
    assert log[cut].type == "turn.ended"
    cut = undo_cut(log[:cut])
    assert log[cut].data["choice"] == "dodge"
    before = replay(log[:cut])
    assert before.pending is not None and before.combatants["c2"].statuses == {}


def test_a_luck_status_stored_with_its_appliers_id_in_source_reads_as_by():
    # RULE: ENG-1
    log, snapshot = stored_log("luck_log_before_status_by.json")
    stun = next(e for e in log if e.type == "status.applied")
    ash = stun.data["source"]
    assert ash in snapshot["combatants"] and "by" not in stun.data
    state = replay(log)
    assert as_stored(state.to_dict()) == BattleState.from_dict(snapshot).to_dict()
    assert state.combatants[stun.data["combatant"]].statuses["stun"] == {
        "power": 4,
        "duration": 1,
        "by": ash,
        "value": 7,
        "defense": 3,
    }


def _paradigm_state():
    state = BattleState("paradigm", {}, seed=1)
    for cid in ("c1", "c2"):
        state.combatants[cid] = Combatant(cid, cid.upper())
    return state


def test_a_paradigm_status_stored_with_by_combatant_and_its_item_in_source_reads_by_and_item():
    state = _paradigm_state()
    old = {"combatant": "c2", "status": "regen", "power": 0, "duration": 2, "source": "item:elixir"}
    apply_event(state, Event("status.applied", {**old, "by_combatant": "c1"}), get_ruleset("paradigm"))
    assert state.combatants["c2"].statuses["regen"] == {
        "power": 0,
        "duration": 2,
        "item": "elixir",
        "by": "c1",
    }
    apply_event(state, Event("status.applied", {**old, "by_combatant": None}), get_ruleset("paradigm"))
    assert state.combatants["c2"].statuses["regen"] == {"power": 0, "duration": 2, "item": "elixir"}
    ability = {**old, "source": "haste", "by_combatant": "c1"}
    apply_event(state, Event("status.applied", ability), get_ruleset("paradigm"))
    assert state.combatants["c2"].statuses["regen"] == {
        "power": 0,
        "duration": 2,
        "ability": "haste",
        "by": "c1",
    }


def test_today_s_names_pass_through_and_the_gm_s_mark_stays_in_the_log():
    ids = {"c1", "c2"}
    assert status_fields({"power": 0, "by": "c1", "ability": "fire"}, ids) == {
        "power": 0,
        "by": "c1",
        "ability": "fire",
    }
    assert status_fields({"power": 2, "by": "gm"}, ids) == {"power": 2}
    assert status_fields({"power": 0, "source": "c9"}, ids) == {
        "power": 0,
        "source": "c9",
    }  # no such combatant
    assert status_fields({"power": 0, "by_id": "c2"}, ids) == {"power": 0, "by": "c2"}
