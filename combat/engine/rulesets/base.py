"""The ruleset plugin API.

A ruleset is a class with a ``key``, a display ``name``, a ``board`` kind
(``"grid"`` or ``"rows"``), ``options`` (house rules with defaults, one per
**[choice]** of docs/RULESETS.md), a ``sheet_schema`` describing the stats a
character needs, and hooks. The core (``combat.engine.core``) owns the
setup and GM actions, turn order and round bookkeeping, reaction windows,
undo and visibility; it calls these hooks and never tests which ruleset it
runs. Adding a ruleset = a new package here + one line in ``RULESETS``.

How the core drives a ruleset
-----------------------------
Every hook that changes something receives a ``Ctx`` (``combat.engine.context``):

- ``ctx.state``   a private working copy of the battle (read it freely; it
  reflects every event emitted so far in this decision);
- ``ctx.roll(expr, purpose, adds=[(1, "Sword")], times=1, times_why="") -> Roll``  roll dice; the
  roll is attached to the next event emitted (ENG-2), whole: each flat amount the rules add to it
  with what it comes from, in a player's words, and a multiplier with its reason. Go on with
  ``roll.result`` (``roll.total`` is the dice alone): the log shows the roll so, to everyone who
  may see it, and works nothing out;
- ``ctx.emit(type, **data) -> Event``  record a fact; it is applied at once;
- ``ctx.open_decision(combatant_id, prompt, options, default, trigger, resume, gm_only=False)``
  open a reaction window (ENG-6). Call it as the *last* step of a resolver
  (``return ctx.open_decision(...)``): the rest of the action happens in
  ``resume(ctx, decision, choice)`` once the controller (or the GM) answers.
  GM-controlled non-PCs answer at once with ``default`` when the option
  ``npc_reactions`` is ``"auto"`` (the NPC policy); ``gm_only=True`` makes a
  prompt only the GM answers (BLOCK-INS-1's insanity roll);
- ``ctx.end_turn()``  end the current turn now (finishers, AP exhausted).

Turn-flow hooks (round/turn start and end) may open a reaction window too
(a phase where players choose, an end-of-round prompt): the core stops the
flow there and continues it after the answer and ``resume``.

Typical reactions: LUCK interrupt after the damage roll (Parry), MIST
rampart attack before a move completes, BLOCK dodge before the to-hit roll
and block after a hit. Each is ``open_decision`` at that point of the
resolver, with what is left to do in ``resume`` (JSON).

Events: the generic ones (``events.GENERIC_EVENTS``: their fields and sentences) are the
core's, and the core applies those that change the state (``combatant.added``,
``order.set``, ``turn.started``, ``resources.set``, ``hp.set``, ``damage.dealt``/``healed``,
``status.applied``/``removed``/``updated``, ``moved``, ``row.changed``, ``battle.extra``,
``decision.opened``/``answered``, ``battle.ended``...). Any event whose data has ``actor`` and
``spend`` (``{"actions": 1}``) deducts those resources from the actor. A ruleset's own events are
described in its package's ``events.py`` (``EventType``: typed fields, the log's sentence) and
registered as ``events``; they are log-only unless the ruleset maps them in ``appliers`` (event
type -> ``applier(state, data)``).

Hooks to override (all optional except what your rules need)
------------------------------------------------------------
- ``actions``: the dispatch table, action kind -> resolver; each resolver is
  a plain function ``resolver(ctx, actor: Combatant, action) -> Refusal | None``
  (usually in the package's ``actions.py``). It must validate before emitting
  (ENG-4). ``end_turn`` is provided by the core unless the ruleset maps it.
- ``params``: action kind -> TypedDict of its parameters, for the kinds only this
  ruleset has (the generic kinds are ``actions.ACTION_PARAMS``); a generic kind whose
  parameters the ruleset extends maps to a subclass of the generic TypedDict.
- ``events``: event type -> ``EventType`` (fields and sentence) for the ruleset's own
  events, and for generic events it extends with fields of its own (``EventType.extended``).
- ``appliers``: event type -> ``applier(state, data)`` for the ruleset's own
  events that change state (other event types are log-only).
- ``init_combatant(sheet) -> dict``: hp, max_hp, resources, extra of a new combatant.
- ``on_battle_start(ctx)``: emit ``order.set`` (initiative); default keeps add order.
- ``on_round_start(ctx)`` / ``on_round_end(ctx)``; ``on_turn_start(ctx, c)`` /
  ``on_turn_end(ctx, c)``.
- ``can_take_turn(state, c) -> bool``: skipped in the order when False.
- ``legal_actions(state, c) -> list[ActionOption]`` (ENG-5) for the current actor.
- ``resume(ctx, decision, choice)``: finish an action paused by a reaction window.
- ``check_victory(state) -> dict | None`` (ENG-9); default: one side left able.
- ``hp_fields(c, hp) -> dict``: what setting HP implies (``ko``...).
- ``content`` (ENG-10 starter pack) and ``content_check`` (validation of a
  custom pack); custom packs ride in ``battle.created`` and are in
  ``state.extra["content"]``. Read definitions with ``definitions(state,
  kind)`` / ``definition(state, kind, key)`` of this module (both go through
  ``lookup``), never from the starter pack alone. ``check_sheet_content(state, sheet) -> message | None``
  refuses sheets naming undefined content (every field of the sheet schema with ``content`` kinds);
  ``status_keys(state)`` (the ``statuses`` of the pack) limits ``gm.add_status``.
- ``grid_metric``: how squares are counted (``"chebyshev"``: a diagonal step
  is 1; ``"manhattan"``: no diagonal steps); a ``grid_metric`` house rule
  overrides it (``metric(state)``).

Shared pieces: ``count_down_statuses`` (durations), ``roll_initiative`` and
``order_with_rolloffs`` (initiative ties and roll-offs), ``lookup`` /
``definitions`` / ``definition`` / ``definition_in`` / ``status_name`` (content),
``blocked_by`` (what a status forbids), ``obstacles`` (who blocks a move).

``combat/engine/rulesets/README.md`` walks through adding a ruleset as a
package; ``tests/engine/test_plugin_api.py`` plays the toy ruleset it builds
(AP, rows, a dodge window, an end-of-round prompt).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, TypeAlias

from combat.engine.initiative import count_down_statuses as count_down_statuses
from combat.engine.initiative import order_with_rolloffs as order_with_rolloffs
from combat.engine.initiative import roll_initiative as roll_initiative
from combat.engine.schema import Field, SheetSchema

if TYPE_CHECKING:
    from combat.engine.actions import Action, ActionOption, Refusal
    from combat.engine.board import Square
    from combat.engine.context import Ctx
    from combat.engine.events import EventType
    from combat.engine.state import BattleState, Combatant, Decision

#: Content definitions by kind and key: ``{"statuses": {"stun": {...}}, ...}``.
Pack: TypeAlias = "dict[str, dict[str, dict[str, Any]]]"
#: ``resolver(ctx, actor, action)``: validates, then emits events; a Refusal changes nothing.
Resolver: TypeAlias = "Callable[[Ctx, Combatant, Action], Refusal | None]"
#: ``applier(state, data)``: folds one of the ruleset's own events into the state.
Applier: TypeAlias = "Callable[[BattleState, dict[str, Any]], None]"

# Options every ruleset has: how much of the enemy the players see, how NPCs react.
COMMON_OPTIONS: tuple[Field, ...] = (
    Field(
        "hide_enemy_hp",
        "Hide exact enemy HP from players",
        "bool",
        default=True,
        help="Players see an enemy's health only as unhurt, wounded (half or more left), bloodied (less than "
        "half) or down. They never see its HP, the damage it takes, its armour or defence, the GM's changes "
        "to its HP, the strength and length of its statuses, or the dice it rolls to heal itself. The dice "
        "the heroes roll stay visible. The GM always sees everything.",
    ),
    Field(
        "npc_reactions",
        "GM-controlled NPC reactions",
        "choice",
        default="auto",
        choices=("auto", "ask"),
        labels=("Answer at once", "Ask the GM"),
        help="When a monster or NPC may react (dodge, parry...), it answers at once with its usual choice, "
        "or the GM is asked each time.",
    ),
    Field(
        "monsters_act",
        "Monsters act on their own",
        "bool",
        default=False,
        help="On a monster's or NPC's turn the rules' tactics play it at once, and the log says why "
        "(the GM can undo it like any action). Off: the GM plays them, or lets the tactics act for one.",
    ),
)


@dataclass(frozen=True)
class CarryOver:
    """One rule of the end-of-battle summary: what a battle leaves on a character, or what starts afresh.

    ``label``: what it is about, in a player's words. ``carries``: the battle's value goes to the sheet
    (True) or the next battle starts afresh (False). ``why``: the rule in game terms, as a player reads
    it (no rule IDs, no talk of where the rule comes from). ``field``: the sheet field written back ("" for none).
    """

    label: str
    carries: bool
    why: str
    field: str = ""


HP_RESTORED = CarryOver(
    "HP",
    False,
    "Every battle starts at full HP: the sheet's Max HP.",
)
STATUSES_END = CarryOver(
    "Statuses",
    False,
    "Statuses still on when the battle ends are gone.",
)


class Ruleset:
    """Base class of every ruleset: metadata, validation, and default hooks."""

    key: ClassVar[str] = ""
    name: ClassVar[str] = ""
    #: One line saying what kind of game it is, in a player's words (the GM's ruleset choice, "Try a battle").
    summary: ClassVar[str] = ""
    board: ClassVar[str] = "grid"
    source: ClassVar[str] = ""
    options: ClassVar[tuple[Field, ...]] = ()
    sheet_schema: ClassVar[SheetSchema] = SheetSchema()
    actions: ClassVar[Mapping[str, Resolver]] = {}
    #: The parameters of the ruleset's own action kinds (TypedDicts), beyond ``actions.ACTION_PARAMS``.
    params: ClassVar[Mapping[str, type]] = {}
    #: The ruleset's own event types (and the generic ones it extends): fields and sentences.
    events: ClassVar[Mapping[str, EventType]] = {}
    appliers: ClassVar[Mapping[str, Applier]] = {}
    content: ClassVar[Pack] = {}
    #: The content schema: one ``DefinitionKind`` per kind of definition (campaign forms are generated from it).
    content_kinds: ClassVar[dict[str, Any]] = {}
    grid_metric: ClassVar[str] = "chebyshev"
    #: Ready-made sheets of the starter content by display name: player characters and monsters.
    heroes: ClassVar[dict[str, dict[str, Any]]] = {}
    monsters: ClassVar[dict[str, dict[str, Any]]] = {}
    #: How the rules read the source where it is silent or ambiguous and the reading is not an option:
    #: plain sentences shown to the GM with the house rules.
    readings: ClassVar[tuple[str, ...]] = ()
    #: What a battle leaves on a character and what the next battle resets (the end-of-battle summary).
    carry_over: ClassVar[tuple[CarryOver, ...]] = (HP_RESTORED, STATUSES_END)
    #: How a combatant left to the rules chooses its action (a ``combat.engine.tactics.Tactics``);
    #: None: the shared frame alone.
    tactics: ClassVar[Any] = None

    @classmethod
    def option_schema(cls) -> SheetSchema:
        return SheetSchema(COMMON_OPTIONS + tuple(cls.options))

    #: House rules a table with no game master needs beyond the defaults: no question may wait for one
    #: (e.g. a prompt only the GM answers turned off). ``unattended_options`` adds them.
    unattended: ClassVar[dict[str, Any]] = {}

    @classmethod
    def default_options(cls) -> dict[str, Any]:
        return {f.key: f.default for f in cls.option_schema()}

    @classmethod
    def unattended_options(cls) -> dict[str, Any]:
        """The house rules of a table nobody runs ("Try a battle"): the defaults, the tactics playing the
        monsters and NPCs on their turns and answering for them at once, and the ruleset's ``unattended``."""
        return {**cls.default_options(), "monsters_act": True, "npc_reactions": "auto", **cls.unattended}

    @classmethod
    def validate_options(cls, data: Any) -> tuple[dict[str, Any], dict[str, list[str]]]:
        """Validate house rules; missing options take their defaults."""
        if data is None:
            data = {}
        if not isinstance(data, dict):
            return {}, {"__all__": ["Expected an object of named options."]}
        merged = {**cls.default_options(), **data}
        return cls.option_schema().validate(merged)

    @classmethod
    def validate_sheet(cls, data: Any) -> tuple[dict[str, Any], dict[str, list[str]]]:
        return cls.sheet_schema.validate(data)

    @classmethod
    def implements_actions(cls) -> bool:
        """True when the ruleset resolves turn actions (playable battles)."""
        return bool(cls.actions)

    # --- content (ENG-10) -------------------------------------------------
    #: ``check(pack) -> (clean pack, errors)`` for the ruleset's custom content, wrapped in ``staticmethod``
    #: (None: the ruleset takes no content). ``validate_content`` and ``clean_content`` use it.
    content_check: ClassVar[staticmethod[[Any], tuple[dict[str, Any], dict[str, list[str]]]] | None] = None

    def validate_content(self, pack: Any) -> dict[str, list[str]]:
        """Errors of a custom content pack ({} when valid). Default: ``content_check``, else no content accepted."""
        if self.content_check is not None:
            return self.content_check(pack)[1]
        if pack:
            return {"__all__": [f"{self.name} has no content definitions."]}
        return {}

    def clean_content(self, pack: Any) -> dict[str, Any]:
        """The validated pack with defaults filled in (stored in the ``battle.created`` event)."""
        if self.content_check is not None:
            return self.content_check(pack)[0]
        return {}

    # --- combatants --------------------------------------------------------
    @classmethod
    def starting_row(cls, sheet: dict[str, Any]) -> str:
        """On a rows board: the row a combatant with this sheet starts in (its sheet's ``row``, else front)."""
        row = sheet.get("row") if isinstance(sheet, dict) else None
        return row if row in ("front", "back") else "front"

    def init_combatant(self, sheet: dict[str, Any]) -> dict[str, Any]:
        """Initial ``hp``, ``max_hp``, ``resources``, ``extra`` of a combatant with this sheet."""
        hp = int(sheet.get("hp", 1))
        return {"hp": hp, "max_hp": hp, "resources": {}, "extra": {}}

    def hp_fields(self, c: Combatant, hp: int) -> dict[str, Any]:
        """Fields implied by setting ``c``'s HP to ``hp`` (default: KO at 0, back up above 0)."""
        return {"ko": hp <= 0}

    def can_take_turn(self, state: BattleState, c: Combatant) -> bool:
        return c.alive and not c.ko

    # --- flow hooks -----------------------------------------------------------
    def on_battle_start(self, ctx: Ctx) -> None:
        """Set the turn order (emit ``order.set``). Default: the order combatants were added."""
        ctx.emit("order.set", order=list(ctx.state.combatants))

    def on_round_start(self, ctx: Ctx) -> None:
        pass

    def on_round_end(self, ctx: Ctx) -> None:
        pass

    def on_turn_start(self, ctx: Ctx, c: Combatant) -> None:
        pass

    def on_turn_end(self, ctx: Ctx, c: Combatant) -> None:
        pass

    def legal_actions(self, state: BattleState, c: Combatant) -> list[ActionOption]:
        """Options of the current actor besides ``end_turn`` (the core adds that one)."""
        return []

    def resume(self, ctx: Ctx, decision: Decision, choice: str) -> Refusal | None:
        """Finish the action paused by ``decision`` with the chosen option."""
        return None

    # --- plans (``combat.engine.plans``: target-first acting on the board) ------------------------
    #: The option kinds that move the acting combatant (a move's squares, or a change of row): a plan
    #: may take one before its action.
    plan_moves: ClassVar[tuple[str, ...]] = ("move",)
    #: Option kinds that lengthen the turn's moves (Mist & Rampart's double move): a plan may take one
    #: before its move.
    plan_boosts: ClassVar[tuple[str, ...]] = ()

    def plan_steps(
        self, state: BattleState, c: Combatant, option: ActionOption
    ) -> list[tuple[dict[str, Any], list[tuple[int, int]]]]:
        """The steps ``option`` itself may take before it acts (D20 Luck's free step): for each, the
        parameters it adds to the action and the squares walked, start first. Default: none."""
        return []

    def check_victory(self, state: BattleState) -> dict[str, Any] | None:
        """ENG-9: the result when the battle is over, else None. Default: one side left able to act."""
        able_sides = {c.side for c in state.combatants.values() if c.able}
        if len(able_sides) > 1:
            return None
        winner = next(iter(able_sides), None)
        reason = f"Only the {winner} side can still act." if winner else "No one can act."
        return {"winner": winner, "reason": reason, "by": "rules"}

    # --- between battles ----------------------------------------------------------------
    def after_battle(self, state: BattleState, c: Combatant) -> list[tuple[CarryOver, Any]]:
        """The end-of-battle summary of ``c``: each ``carry_over`` rule and the value it proposes for its field."""
        return [(rule, self.carried_value(state, c, rule)) for rule in self.carry_over]

    def carried_value(self, state: BattleState, c: Combatant, rule: CarryOver) -> Any:
        """The sheet value ``rule`` proposes after the battle (None for a rule that writes nothing)."""
        return None

    def used_in_battle(self, state: BattleState, c: Combatant) -> list[str]:
        """What ``c`` used up in the battle, in words (consumables); default nothing."""
        return []

    def stock(self, state: BattleState, c: Combatant) -> dict[str, tuple[int, int | None]]:
        """What ``c`` has left of what a fight spends and no turn gives back (HP aside): by name in a
        player's words, each with its full amount (None: no fixed top), e.g. ``{"MP": (7, None)}``.
        The odds of a planned fight average it; per-turn resources are not stock. Default nothing."""
        return {}

    def side_stock(self, state: BattleState, side: str) -> dict[str, tuple[int, int | None]]:
        """Like ``stock``, for what a whole side shares (a party's common items). Default nothing."""
        return {}

    # --- shared readings ------------------------------------------------------------
    @classmethod
    def move_squares(cls, sheet: dict[str, Any]) -> int:
        """Squares one move covers at the start of a turn, before statuses (the sheet's ``movement``,
        else the schema's default; at least 1): set-up places the two sides that far apart."""
        value = sheet.get("movement", cls.sheet_schema.defaults().get("movement", 1))
        return max(1, value) if type(value) is int else 1

    @classmethod
    def metric(cls, state: BattleState) -> str:
        """How squares are counted in this battle: the ``grid_metric`` house rule, else the ruleset's."""
        return str(state.options.get("grid_metric", cls.grid_metric))

    @classmethod
    def status_keys(cls, state: BattleState) -> set[str] | None:
        """The statuses a GM may add: those the battle's content defines (None: any name)."""
        if "statuses" not in cls.content:
            return None
        return set(definitions(state, "statuses"))

    def check_sheet_content(self, state: BattleState, sheet: dict[str, Any]) -> str | None:
        """Why a sheet cannot join this battle, or None: a field of the sheet schema naming content
        (``Field.content``) names a key that none of its kinds defines in this battle."""
        for spec in self.sheet_schema:
            if not spec.content:
                continue
            value = sheet.get(spec.key)
            keys = value if isinstance(value, list) else [value] if value else []
            unknown = [
                str(k) for k in keys if all(definition(state, kind, k) is None for kind in spec.content)
            ]
            if unknown:
                return f"Unknown {spec.key.replace('_', ' ')}: {', '.join(unknown)}."
        return None


def lookup(starter: Pack, custom: Pack | None, kind: str) -> dict[str, dict[str, Any]]:
    """ENG-10, the one content lookup: the definitions of ``kind``, custom content over the starter pack.

    A custom definition replaces the starter one with the same key; new keys
    are added. ``custom`` is the campaign's pack as stored in
    ``state.extra["content"]`` (None or {} when the battle has none).

    >>> lookup({"statuses": {"stun": {"name": "Stun"}}}, {"statuses": {"stun": {"name": "Dazed"}}}, "statuses")
    {'stun': {'name': 'Dazed'}}
    """
    mine = custom.get(kind) if custom else None
    if not mine:
        return starter.get(kind, {})
    return {**starter.get(kind, {}), **mine}


def definitions(state: BattleState, kind: str) -> dict[str, dict[str, Any]]:
    """The battle's definitions of ``kind`` (``lookup`` with its ruleset's starter pack and its custom pack)."""
    rules = _registry().get(state.ruleset)
    if rules is None:
        from combat.engine.rulesets import get_ruleset

        rules = get_ruleset(state.ruleset)  # raises UnknownRuleset
    return lookup(rules.content, state.extra.get("content"), kind)


@functools.cache
def _registry() -> Mapping[str, type[Ruleset]]:
    """The ruleset registry, imported on first use (it imports this module); rules read it often."""
    from combat.engine.rulesets import RULESETS

    return RULESETS


def definition(state: BattleState, kind: str, key: Any) -> dict[str, Any] | None:
    """One of ``definitions(state, kind)`` by key (None when undefined or not a key)."""
    if not isinstance(key, str) or not key:
        return None
    return definitions(state, kind).get(key)


def definition_in(starter: Pack, custom: Pack | None, kind: str, key: Any) -> dict[str, Any] | None:
    """One definition of ``lookup(starter, custom, kind)`` by key, for rules that read a sheet before the
    battle's state exists (None when undefined or not a key).

    >>> definition_in({"armors": {"mail": {"pdr": 2}}}, None, "armors", "mail")
    {'pdr': 2}
    """
    if not isinstance(key, str) or not key:
        return None
    return lookup(starter, custom, kind).get(key)


def obstacles(state: BattleState, mover: Combatant) -> tuple[set[Square], set[Square]]:
    """(blocked, no_stop) squares for ``mover``: walls and able enemies block; allies and the fallen can be
    crossed but not stopped on (D20 Luck, Action Block)."""
    blocked = {(b[0], b[1]) for b in state.blocked}
    no_stop: set[Square] = set()
    for o in state.combatants.values():
        if o is mover or o.pos is None or not o.alive:
            continue
        (blocked if o.side != mover.side and not o.ko else no_stop).add((o.pos[0], o.pos[1]))
    return blocked, no_stop


def blocked_by(state: BattleState, c: Combatant, what: str) -> str | None:
    """The name of a status of ``c`` whose definition blocks ``what`` (its ``blocks`` list: "actions",
    "movement", "spells"... as the ruleset's content names them), or None."""
    if not c.statuses:
        return None
    defs = definitions(state, "statuses")
    for key in c.statuses:
        d = defs.get(key)
        if d and what in d.get("blocks", ()):
            return str(d["name"])
    return None


def defined(state: BattleState, kind: str, key: str) -> dict[str, Any]:
    """A definition the rules already know exists (a checked action's, a resumed step's): KeyError if not."""
    return definitions(state, kind)[key]


def grid_metric_of(state: BattleState) -> str:
    """How squares are counted in this battle (``Ruleset.metric``; ``"chebyshev"`` or ``"manhattan"``)."""
    from combat.engine.rulesets import get_ruleset

    return get_ruleset(state.ruleset).metric(state)


def status_name(state: BattleState, key: str) -> str:
    """A status's display name: its ``name`` in the battle's content, else the key in words."""
    d = definition(state, "statuses", key)
    return str(d["name"]) if d and "name" in d else key.replace("_", " ").title()
