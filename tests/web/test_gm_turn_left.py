"""After "Let the tactics act" the GM's panel says what is left of the turn, "End turn" first.

The tactics stop where a player must answer (Bram's Parry against the Goblin's spear); once Bram has
answered, the Goblin's turn goes on and is the GM's to finish: the panel says so, and its first option
ends the turn (issue 35: nothing said the turn still needed "End turn")."""

from __future__ import annotations

import re

import pytest

from combat import services
from combat.engine.actions import Action, Refusal
from combat.engine.core import resolve
from combat.engine.dice import Dice
from combat.models import Battle
from tests.table import current, table

pytestmark = pytest.mark.django_db
ACTIONS = re.compile(r'<section id="actions".*?</section>', re.S)
OPTION = re.compile(r'<form id="opt-(\d+)"[^>]*>.*?<button[^>]*class="opt"[^>]*>([^<]*)<', re.S)


def _tactics_ask_bram(battle: Battle, users) -> None:
    """The Goblin's turn, next to Bram and away from Ayla, with the battle's dice picked (a seed, ENG-2) so that the tactics'
    first attack on him hits and opens his Parry."""
    battle.refresh_from_db()
    ayla = current(battle)
    assert services.submit_action(battle.pk, users["player"], {"kind": "end_turn", "actor": ayla.id}).ok
    goblin = current(battle)
    state = services.load_state(Battle.objects.get(pk=battle.pk))
    bram = next(c for c in state.combatants.values() if c.name == "Bram")
    move = {"kind": "gm.move", "params": {"combatant": goblin.id, "to": [1, 3]}}  # out of Ayla's reach
    assert services.gm_override(battle.pk, users["gm"], move).ok
    battle.refresh_from_db()
    state = services.load_state(battle)
    for seed in range(2000):
        out = resolve(state, Action("gm.tactics"), Dice(seed, battle.seq))
        if (
            not isinstance(out, Refusal)
            and out[1].pending is not None
            and out[1].pending.combatant == bram.id
        ):
            Battle.objects.filter(pk=battle.pk).update(seed=seed)
            return
    raise AssertionError("no seed lets the tactics ask Bram")


def test_after_the_tactics_stop_for_an_answer_the_gm_reads_what_is_left_end_turn_first(client):
    users, _, battle = table()
    _tactics_ask_bram(battle, users)
    assert services.let_tactics_act(battle.pk, users["gm"]).ok
    battle.refresh_from_db()
    state = services.load_state(battle)
    assert state.pending is not None and state.current().name == "Goblin"
    client.force_login(users["gm"])
    asked = ACTIONS.search(client.get(f"/battles/{battle.pk}/").content.decode()).group(0)
    assert "The tactics stopped" not in asked  # the table waits for Bram: nothing to finish yet
    answer = {
        "kind": "answer",
        "actor": state.pending.combatant,
        "params": {"decision": state.pending.id, "choice": state.pending.default},
    }
    assert services.submit_action(battle.pk, users["other_player"], answer).ok
    assert current(battle).name == "Goblin"  # the turn goes on: the GM's to finish
    panel = ACTIONS.search(client.get(f"/battles/{battle.pk}/").content.decode()).group(0)
    assert "Acting for Goblin" in panel
    assert (
        "The tactics stopped for an answer: Goblin&#x27;s turn goes on. End it, or act with what is left:"
        in panel
    )
    options = [label.strip() for _, label in OPTION.findall(panel)]
    assert options[0] == "End turn" and len(options) > 1, options
    # Once that turn is over, the next monster's panel is as usual.
    assert services.submit_action(
        battle.pk, users["gm"], {"kind": "end_turn", "actor": current(battle).id}
    ).ok
    assert "The tactics stopped" not in client.get(f"/battles/{battle.pk}/").content.decode()
