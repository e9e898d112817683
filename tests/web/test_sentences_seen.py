"""One rule for every sentence: a player is never told the name of a combatant they could not see then.

Random battles of every registered ruleset, played through the web layer (players post their actions
as their pages do, the GM acts through the services), with fog over part of the board and monsters
the GM hides and reveals, hurts and moves, and turns the tactics play. Every byte a player's socket
would pick from a push, every HTMX answer to a player (outcome lines and refusals), and the battle
page and older-log page as a player or an observer opens them, is read for the names of combatants
that viewer may not know of (``fog.unseen`` of the battle replayed up to that seq):

- a log entry (``id="log-<seq>"``) is judged at its own seq: a line told while the monster was seen
  stays, a line about its hidden turns is never told, not even once it is revealed;
- everything else (tracker, tokens, prompt, action panel, outcome line, tactics reason, refusal) is
  judged at the seq of the bytes it came with.

The first example is the Paradigm Rows case of issue 36: a hurt Goblin steps back behind an Ogre the
players cannot see, and the tactics' reason must not name it.
"""

from __future__ import annotations

import html
import random
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from combat import live, services
from combat.engine import fog
from combat.engine.actions import Action
from combat.engine.autoplay import random_action
from combat.engine.core import replay
from combat.engine.events import Event
from combat.engine.rulesets import RULESETS, get_ruleset
from combat.engine.state import BattleState
from combat.models import Battle, BattleEvent
from tests.table import make_campaign, make_user, table
from vtt.models import Character, CharacterKind

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}
ENTRY = re.compile(r'<li class="entry[^"]*" data-seq="(\d+)" id="log-\d+">.*?</li>', re.S)
PAGE_SEQ = re.compile(r'id="battle-seq"[^>]*data-seq="(\d+)"')
WIDTH, HEIGHT = 8, 6
LIGHT = [0, 0, 2, HEIGHT - 1]  # the party's side of the board, revealed when the fog covers it

OPS = st.one_of(
    st.tuples(st.just("play")),
    st.tuples(st.just("play")),
    st.tuples(st.just("play")),
    st.tuples(st.just("hide"), st.integers(0, 2), st.booleans()),
    st.tuples(st.just("hurt"), st.integers(0, 2)),
    st.tuples(
        st.just("fog"),
        st.sampled_from(["reveal", "hide"]),
        st.integers(0, WIDTH - 1),
        st.integers(0, HEIGHT - 1),
        st.integers(0, 3),
        st.integers(0, 3),
    ),
    st.tuples(st.just("move"), st.integers(0, 2), st.integers(0, WIDTH - 1), st.integers(0, HEIGHT - 1)),
    st.tuples(st.just("poke"), st.integers(0, 1)),
    st.tuples(st.just("look")),
    st.tuples(st.just("undo")),
)
PLAY = [("play",), ("play",), ("hurt", 0)] * 8


class Table:
    """One random battle: its people, what each player was sent, and who each could see at each seq."""

    def __init__(self, key: str, seed: int, people: dict[str, Any], client: Any, monkeypatch: Any) -> None:
        self.key, self.people, self.client = key, people, client
        self.rules = get_ruleset(key)
        self.grid = self.rules.board == "grid"
        self.pushed: list[dict[str, Any]] = []
        monkeypatch.setattr(live, "publish", lambda group, message: self.pushed.append(message))
        campaign = make_campaign(
            people["gm"],
            key,
            player=[people["player"], people["other_player"]],
            observer=[people["observer"]],
        )
        made = services.create_battle(campaign, people["gm"], "Fight", WIDTH, HEIGHT, ruleset=key, seed=seed)
        assert made.ok, made.reason
        self.battle_id = made.battle_id
        heroes, monsters = list(self.rules.heroes.items()), list(self.rules.monsters.items())
        for i, owner in enumerate(("player", "other_player")):
            name, sheet = heroes[i % len(heroes)]
            pc = Character.objects.create(
                campaign=campaign, name=f"{name} {i + 1}", owner=people[owner], sheet=sheet
            )
            self._add(pc, pos=[0, 2 * i], row=sheet.get("row"))
        for i in range(3):
            name, sheet = monsters[i % len(monsters)]
            foe = Character.objects.create(
                campaign=campaign, name=f"{name} {i + 1}", kind=CharacterKind.MONSTER, sheet=sheet
            )
            self._add(foe, pos=[WIDTH - 3, 2 * i], row=sheet.get("row"))
        state = self.state()
        self.monsters = [cid for cid, c in state.combatants.items() if c.side == "enemy"]
        self.heroes = [cid for cid, c in state.combatants.items() if c.side == "party"]
        self.names = {cid: c.name for cid, c in state.combatants.items()}
        self.uids = {name: str(people[name].pk) for name in ("player", "other_player", "observer")}
        self.watchers = {
            "player": self.uids["player"],
            "other_player": self.uids["other_player"],
            "observer": None,
        }
        self.unseen: dict[int, dict[str, frozenset[str]]] = {}

    def _add(self, character: Character, pos: list[int], row: str | None) -> None:
        place = {"pos": pos} if self.grid else {"row": row or "front"}
        added = services.add_combatant(self.battle_id, self.people["gm"], character, **place)
        assert added.ok, added.reason

    def battle(self) -> Battle:
        return Battle.objects.get(pk=self.battle_id)

    def state(self) -> BattleState:
        return services.load_state(self.battle())

    def gm(self, kind: str, **params: Any) -> services.Result:
        return services.gm_override(self.battle_id, self.people["gm"], {"kind": kind, "params": params}, None)

    # --- who could see whom, from the log as it stands (the oracle: a replay, seq by seq) ---------

    def learn(self) -> None:
        rows = (
            BattleEvent.objects.filter(battle_id=self.battle_id)
            .order_by("seq")
            .values_list("seq", "type", "data")
        )
        events = [(seq, Event(t, d)) for seq, t, d in rows]
        state = replay([events[0][1]])
        self.unseen = {1: self._unseen(state)}
        from combat.engine.core import apply_all

        for seq, event in events[1:]:
            state = apply_all(state, [event])
            self.unseen[seq] = self._unseen(state)

    def _unseen(self, state: BattleState) -> dict[str, frozenset[str]]:
        return {who: fog.unseen(state, uid) for who, uid in self.watchers.items()}

    # --- reading what a viewer got ----------------------------------------------------------------

    def leaks(self, text: str, seq: int, who: str) -> list[tuple[int, str, str]]:
        """Names (and token ids) of combatants ``who`` could not see, in ``text`` sent at ``seq``."""
        found = []
        for entry in ENTRY.finditer(text):
            found += self._named(entry.group(0), int(entry.group(1)), who, ids=False)
        found += self._named(ENTRY.sub("", text), seq, who, ids=True)
        return found

    def _named(self, part: str, seq: int, who: str, ids: bool) -> list[tuple[int, str, str]]:
        unseen = self.unseen[seq][who]
        if not unseen:
            return []
        words = html.unescape(part)
        for cid in sorted(set(self.names) - unseen, key=lambda c: -len(self.names[c])):
            words = re.sub(_word(self.names[cid]), "\x00", words)  # a seen name that holds an unseen one
        out = []
        for cid in unseen:
            hit = re.search(_word(self.names[cid]), words)
            if hit:
                out.append((seq, self.names[cid], words[max(0, hit.start() - 120) : hit.end() + 60]))
            if ids and re.search(rf'data-cid="{cid}"|id="(tok|trk)-{cid}(-\d+)?"', part):
                out.append((seq, cid, "token"))
        return out

    def check_pushes(self) -> None:
        for message in self.pushed:
            for who, uid in self.watchers.items():
                own = message["users"].get(uid, message.get("watch", "")) if uid else message.get("watch", "")
                leaks = self.leaks(message["pl"] + own, message["seq"], who)
                assert not leaks, ("push", who, leaks)
        self.pushed.clear()

    def check_reply(self, response: Any, who: str) -> None:
        text = response.content.decode()
        seq = self.battle().seq
        leaks = self.leaks(text, seq, who)
        assert not leaks, ("reply", who, leaks)

    def look(self) -> None:
        for who in self.watchers:
            self.client.force_login(self.people[who])
            page = self.client.get(f"/battles/{self.battle_id}/").content.decode()
            seq = int(PAGE_SEQ.search(page).group(1))
            assert not (leaks := self.leaks(page, seq, who)), ("page", who, leaks)
            older = self.client.get(f"/battles/{self.battle_id}/log?before=999999").content.decode()
            assert not (leaks := self.leaks(older, seq, who)), ("older log", who, leaks)

    # --- the steps ---------------------------------------------------------------------------------

    def post(self, who: str, action: Action) -> None:
        self.client.force_login(self.people[who])
        data = {"kind": action.kind, "actor": action.actor or "", "params": _json(action.params)}
        if action.kind == "answer":
            data.update(decision=action.params["decision"], choice=action.params["choice"])
        response = self.client.post(f"/battles/{self.battle_id}/act", data, **HX)
        self.learn()
        self.check_reply(response, who)

    def owner_of(self, cid: str | None, state: BattleState) -> str | None:
        c = state.combatants.get(cid or "")
        uid = c.controller if c is not None else None
        return next((who for who, u in self.uids.items() if u == uid), None)

    def play(self, rng: random.Random) -> None:
        """Whoever must act now does: a player from their page, the GM by the tactics or an answer."""
        state = self.state()
        if state.phase != "active":
            return
        pending = state.pending
        if pending is not None:
            who = None if pending.gm_only else self.owner_of(pending.combatant, state)
            answer = {"decision": pending.id, "choice": pending.default}
            if who is None:  # the GM answers for a monster (or rules on a GM-only question)
                services.submit_action(
                    self.battle_id, self.people["gm"], Action("answer", None, answer).to_dict()
                )
            else:
                self.post(who, Action("answer", pending.combatant, answer))
            return
        current = state.current()
        who = self.owner_of(current.id if current else None, state)
        if who is None:
            self.gm("gm.tactics")
            return
        seen = fog.without(state, fog.unseen(state, self.uids[who]))
        action = random_action(seen, rng, end_turn_weight=0.3)
        if action is not None:
            self.post(who, action)

    def step(self, op: tuple[Any, ...], rng: random.Random) -> None:
        kind = op[0]
        state = self.state()
        if kind == "play":
            self.play(rng)
        elif kind == "hide":
            self.gm("gm.hide", combatant=self.monsters[op[1]], hidden=op[2])
        elif kind == "hurt":
            c = state.combatants.get(self.monsters[op[1]])
            if c is not None and c.alive:
                self.gm("gm.set_hp", combatant=c.id, hp=max(1, c.max_hp // 5))
        elif kind == "fog" and self.grid and fog.rows(state) is not None:
            _, mode, x, y, w, h = op
            self.gm("gm.fog", mode=mode, rects=[[x, y, min(WIDTH - 1, x + w), min(HEIGHT - 1, y + h)]])
        elif kind == "move":
            to = {"to": [op[2], op[3]]} if self.grid else {"row": "back" if op[2] % 2 else "front"}
            self.gm("gm.move", combatant=self.monsters[op[1]], **to)
        elif kind == "poke":  # a player taps "End turn" out of turn: the refusal names no one unseen
            self.post(("player", "other_player")[op[1]], Action("end_turn", self.heroes[op[1]]))
        elif kind == "look":
            self.learn()
            self.look()
        elif kind == "undo":
            services.undo(self.battle_id, self.people["gm"])


def _word(name: str) -> str:
    return rf"(?<!\w){re.escape(name)}(?!\w)"


def _json(value: Any) -> str:
    import json

    return json.dumps(value)


@pytest.fixture
def people(db):
    return {name: make_user(name) for name in ("gm", "player", "other_player", "observer")}


@pytest.mark.parametrize("key", sorted(RULESETS))
def test_no_player_is_told_a_name_they_could_not_see_then(
    key, people, client, monkeypatch, django_capture_on_commit_callbacks
):
    @settings(
        max_examples=5,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
        database=None,
    )
    @given(
        seed=st.integers(0, 2**16),
        fogged=st.booleans(),
        hidden=st.sets(st.integers(0, 2), max_size=2),
        ops=st.lists(OPS, min_size=4, max_size=22),
    )
    @example(seed=1, fogged=False, hidden={1}, ops=[("hurt", 0), *PLAY, ("look",)])
    def play(seed: int, fogged: bool, hidden: set[int], ops: list[tuple[Any, ...]]) -> None:
        with django_capture_on_commit_callbacks(execute=True):
            table = Table(key, seed, people, client, monkeypatch)
            if fogged and table.grid:
                table.gm("gm.fog", mode="on")
                table.gm("gm.fog", mode="reveal", rects=[LIGHT])
            for i in sorted(hidden):
                table.gm("gm.hide", combatant=table.monsters[i], hidden=True)
            started = services.start_battle(table.battle_id, people["gm"])
            assert started.ok, started.reason
        table.learn()
        table.check_pushes()
        rng = random.Random(seed)
        for op in ops:
            with django_capture_on_commit_callbacks(execute=True):
                table.step(op, rng)
            table.learn()
            table.check_pushes()
        table.learn()
        table.look()

    play()


def _page(client, user, battle_id: int) -> str:
    client.force_login(user)
    return client.get(f"/battles/{battle_id}/").content.decode()


def test_a_hidden_monsters_turn_tells_the_players_whose_turn_comes_next(client):
    """Ayla, the Goblin, Bram: while the hidden Goblin takes its turn, the players' pages say they wait
    for Bram, as they would if it were not there; the GM's says the Goblin acts."""
    users, _, battle = table(start=False)  # the GM hides the Goblin before the battle begins
    state = services.load_state(battle)
    goblin = next(c for c in state.combatants.values() if c.name == "Goblin")
    assert services.gm_override(
        battle.pk, users["gm"], {"kind": "gm.hide", "params": {"combatant": goblin.id, "hidden": True}}
    ).ok
    assert services.start_battle(battle.pk, users["gm"]).ok
    ayla = services.load_state(Battle.objects.get(pk=battle.pk)).current()
    ended = services.submit_action(battle.pk, users["player"], {"kind": "end_turn", "actor": ayla.id})
    assert ended.ok and ended.state.current().id == goblin.id
    for who in ("player", "other_player", "observer"):
        page = _page(client, users[who], battle.pk)
        assert "the GM&#x27;s turn" not in page and "the GM's turn" not in page, who
        assert "Goblin" not in page, who
        assert "Up next: <strong>Bram</strong>" in page, who
    assert 'Waiting for <span id="waiting-for">Bram</span>&#x27;s turn.' in _page(
        client, users["player"], battle.pk
    )
    assert "Now acting: <strong>Goblin</strong>" in _page(client, users["gm"], battle.pk)


def test_a_reveal_shows_the_monster_from_then_on_and_not_its_hidden_past(client):
    users, _, battle = table()
    state = services.load_state(battle)
    goblin = next(c for c in state.combatants.values() if c.name == "Goblin")
    gm = users["gm"]

    def override(kind: str, **params: Any) -> None:
        done = services.gm_override(battle.pk, gm, {"kind": kind, "params": params})
        assert done.ok, done.reason

    override("gm.hide", combatant=goblin.id, hidden=True)
    override("gm.add_status", combatant=goblin.id, status="slow", power=1, duration=2)
    override("gm.move", combatant=goblin.id, to=[4, 4])
    override("gm.hide", combatant=goblin.id, hidden=False)
    override("gm.move", combatant=goblin.id, to=[5, 5])
    page = _page(client, users["player"], battle.pk)
    assert "The GM reveals Goblin." in page and "Goblin moves to F6." in page  # from the reveal on
    assert "Goblin moves to E5." not in page and "Goblin gets Slow" not in page and "The GM hides" not in page
    older = client.get(f"/battles/{battle.pk}/log?before=999999").content.decode()
    assert "Goblin moves to E5." not in older and "Goblin gets Slow" not in older
    gm_page = _page(client, gm, battle.pk)
    assert "Goblin moves to E5." in gm_page and "The GM hides Goblin." in gm_page
