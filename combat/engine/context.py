"""The working context of one decision, event application, and turn/round bookkeeping.

``Ctx`` wraps a private clone of the state: hooks emit events through it and
each event is applied to the clone at once, so later steps see earlier
effects. ``decide`` returns ``ctx.events``; the caller's state never changes.

Content the engine cannot roll (dice that ``check_expr`` refuses, planted in a
state or a log) never stops the turn flow: every ruleset hook of the flow
(start of battle, round and turn, end of turn and round) runs through
``Ctx.attempt``, which takes back what the hook did and logs a
``rules.failed`` event instead, so end turn and GM skip always go on. An
action whose own dice cannot be rolled is refused (``core.resolve``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import fields
from typing import Any

from combat.engine.actions import Refusal
from combat.engine.dice import DiceError, DiceRoller, Roll
from combat.engine.events import Event
from combat.engine.fold import apply_event as apply_event  # the one place state changes, re-exported
from combat.engine.rulesets import get_ruleset
from combat.engine.rulesets.base import Ruleset
from combat.engine.state import BattleState, Decision

_INSTANCES: dict[str, Ruleset] = {}


def rules_for(state: BattleState) -> Ruleset:
    """The (stateless, shared) ruleset object of a battle."""
    rules = _INSTANCES.get(state.ruleset)
    if rules is None:
        rules = _INSTANCES[state.ruleset] = get_ruleset(state.ruleset)()
    return rules


class Ctx:
    """One decision in progress: working state, dice, emitted events."""

    __slots__ = ("state", "dice", "rules", "events", "origin", "_rolls", "_depth")

    def __init__(
        self, state: BattleState, dice: DiceRoller, rules: Ruleset, origin: BattleState | None = None
    ) -> None:
        self.state = state
        self.dice = dice
        self.rules = rules
        self.events: list[Event] = []
        self.origin = origin  # the state before the decision (unchanged): what ``attempt`` goes back from
        self._rolls: list[dict[str, Any]] = []
        self._depth = 0

    def roll(
        self,
        expr: str,
        purpose: str,
        adds: Sequence[tuple[int, str]] = (),
        times: int = 1,
        times_why: str = "",
    ) -> Roll:
        """Roll dice; the roll is recorded in the next emitted event (ENG-2), whole: with ``adds``, the flat
        amounts the rules add to it, each with what it comes from in a player's words (``[(1, "Sword")]``),
        and ``times``, a multiplier with its reason. Go on with ``result``, the total after them: the log
        shows the roll exactly so, to everyone who may see it."""
        r = self.dice.roll(expr, purpose, adds, times, times_why)
        self._rolls.append(r.to_dict())
        return r

    def emit(self, type: str, **data: Any) -> Event:
        """Record an event and apply it to the working state.

        The dice rolled since the last event ride in it (ENG-2): every roll in
        ``rolls`` and, the same in one line, ``rolled`` {expression, faces, total}.
        """
        if self._rolls:
            data["rolls"] = self._rolls
            data["rolled"] = {
                "expression": " + ".join(r["expr"] for r in self._rolls),
                "faces": [f for r in self._rolls for f in r["faces"]],
                "total": sum(r["total"] for r in self._rolls),
            }
            self._rolls = []
        event = Event(type, data)
        apply_event(self.state, event, self.rules)
        self.events.append(event)
        return event

    def flush_rolls(self) -> None:
        """Attach rolls not yet recorded to a ``dice.rolled`` event (none should remain)."""
        if self._rolls:
            self.emit("dice.rolled")

    def open_decision(
        self,
        combatant: str,
        prompt: str,
        options: list[dict[str, str]],
        default: str,
        trigger: str = "",
        resume: dict[str, Any] | None = None,
        gm_only: bool = False,
        about: str = "",
        usual: str = "",
    ) -> None:
        """Pause for a reaction window (ENG-6); GM-run NPCs answer at once with ``default`` when auto.

        ``prompt`` is put to the one who answers, in words about the choice ("Switch job before your
        turn?"); ``about`` tells everyone else what is being decided ("whether to switch job": the log
        says "Mira decides whether to switch job."). ``gm_only``: a prompt about ``combatant`` that only
        the GM answers (never automatic). ``usual``: why ``default`` is the usual answer, in a player's
        words ("it softens the blow"); the log gives it when an NPC answers at once.
        """
        c = self.state.combatants[combatant]
        controller = None if gm_only else c.controller
        decision = Decision(
            f"d{self.state.seq + 1}",
            combatant,
            controller,
            prompt,
            options,
            default,
            trigger,
            resume or {},
            gm_only,
            about,
        )
        self.emit("decision.opened", decision=decision.to_dict())
        if (
            not gm_only
            and c.controller is None
            and c.kind != "pc"
            and self.state.options.get("npc_reactions", "auto") == "auto"
        ):
            self.answer(decision.id, default, by="policy", reason=usual or "its usual answer")

    def answer(
        self, decision_id: str, choice: str, by: str, guarded: bool = False, reason: str = ""
    ) -> Refusal | None:
        """Close the pending decision with ``choice`` and let the rules go on from it; ``reason``: why, in
        a player's words, for the log (an NPC's usual answer).

        ``guarded`` (an answer sent as an action of its own): dice of what follows that cannot be rolled
        spoil only what follows (``attempt``): the question is answered and the turn goes on. Answered
        within the action that asked (an NPC's policy), they refuse that action instead.
        """
        pending = self.state.pending
        assert pending is not None and pending.id == decision_id
        label = next((o.get("label", "") for o in pending.options if o.get("key") == choice), "")
        self.emit(
            "decision.answered",
            decision=decision_id,
            combatant=pending.combatant,
            choice=choice,
            by=by,
            **({"label": label} if label else {}),
            **({"reason": reason} if reason else {}),
        )
        self._depth += 1
        if self._depth > 50:
            raise RuntimeError("Too many chained reaction windows.")
        if not guarded:
            return self.rules.resume(self, pending, choice)
        result: list[Refusal | None] = [None]

        def resume() -> None:
            result[0] = self.rules.resume(self, pending, choice)

        self.attempt(pending.trigger or "What followed the answer", resume)
        return result[0]

    def end_turn(self) -> None:
        """End the current turn and start the next able combatant's."""
        end_turn(self)

    def attempt(self, what: str, fn: Callable[..., Any], *args: Any) -> bool:
        """Run ``fn(*args)``; when its dice cannot be rolled (``DiceError``), take back every event it
        emitted and log a ``rules.failed`` event saying ``what`` had no effect and why. True when it ran.

        Free when nothing fails; on a failure the working state is rebuilt from ``origin`` and the events
        before the attempt (in place: callers keep their reference to ``ctx.state``). The dice the attempt
        did roll stay recorded, in the ``rules.failed`` event: the log keeps every face drawn, in order.
        """
        mark = len(self.events)
        try:
            fn(*args)
            return True
        except DiceError as exc:
            if self.origin is None:
                raise
            rolled = [r for e in self.events[mark:] for r in e.data.get("rolls", [])] + self._rolls
            self._rewind(mark)
            self._rolls = rolled
            self.emit("rules.failed", what=what, reason=str(exc))
            return False

    def _rewind(self, mark: int) -> None:
        """The working state as it was after the first ``mark`` events (rebuilt from ``origin``)."""
        assert self.origin is not None
        before = self.origin.clone()
        for event in self.events[:mark]:
            apply_event(before, event, self.rules)
        for f in fields(before):
            setattr(self.state, f.name, getattr(before, f.name))
        del self.events[mark:]


# --- turn and round bookkeeping (generic for every ruleset) -------------------


def _paused(ctx: Ctx, at: str, index: int = 0, explained: bool = False) -> bool:
    """True when a hook left a reaction window open: remember where the turn flow stops (and, for the
    end of a turn, that the log already said why it ends: the line stays single once answered)."""
    if ctx.state.pending is None:
        return False
    flow: dict[str, Any] = {"at": at, "index": index}
    if explained:
        flow["explained"] = True
    ctx.emit("battle.extra", set={"flow": flow})
    return True


def start_battle(ctx: Ctx) -> None:
    ctx.emit("battle.started")
    ctx.attempt("The start of the battle", ctx.rules.on_battle_start, ctx)
    if _paused(ctx, "round_start"):
        return
    _round_start(ctx, 1)


def _round_start(ctx: Ctx, number: int) -> None:
    ctx.emit("round.started", round=number)
    ctx.attempt("The start of the round", ctx.rules.on_round_start, ctx)
    if _paused(ctx, "turn", 0) or check_victory(ctx):
        return
    start_next_turn(ctx, 0)


def end_turn(ctx: Ctx, skipped_by: str | None = None, explained: bool = False) -> None:
    """End the current turn (``explained``: the line before in the log already says why it ends)."""
    state = ctx.state
    c = state.current()
    if c is None:
        return
    if skipped_by:
        ctx.emit("turn.skipped", combatant=c.id, by=skipped_by)
    ctx.attempt("The end of the turn", ctx.rules.on_turn_end, ctx, c)
    if _paused(ctx, "turn_end", state.turn, explained):
        return
    _turn_ended(ctx, c.id, explained)


def _turn_ended(ctx: Ctx, cid: str, explained: bool = False) -> None:
    ctx.emit("turn.ended", combatant=cid, **({"explained": True} if explained else {}))
    if check_victory(ctx):
        return
    start_next_turn(ctx, ctx.state.turn + 1)


def start_next_turn(ctx: Ctx, index: int) -> None:
    """Start the turn of the first combatant at or after ``index`` who can act; wrap rounds.

    Hooks may open reaction windows (e.g. choices at the end of a round):
    the flow stops there and ``finish`` continues it once answered.
    """
    state = ctx.state
    for _ in range(3 * len(state.order) + 3):
        if state.phase != "active":
            return
        if index >= len(state.order):
            ctx.attempt("The end of the round", ctx.rules.on_round_end, ctx)
            if _paused(ctx, "round_end"):
                return
            ctx.emit("round.ended", round=state.round)
            ctx.emit("round.started", round=state.round + 1)
            ctx.attempt("The start of the round", ctx.rules.on_round_start, ctx)
            if _paused(ctx, "turn", 0) or check_victory(ctx):
                return
            index = 0
            if not state.order:
                return
        c = state.combatants[state.order[index]]
        if ctx.rules.can_take_turn(state, c):
            ctx.emit("turn.started", combatant=c.id, index=index, round=state.round)
            ctx.attempt("The start of the turn", ctx.rules.on_turn_start, ctx, c)
            return
        index += 1
    check_victory(ctx)


def _continue_flow(ctx: Ctx) -> None:
    """Resume the turn/round flow a reaction window interrupted."""
    state = ctx.state
    flow = state.extra["flow"]
    ctx.emit("battle.extra", set={"flow": None})
    at = flow["at"]
    if at == "turn_end":
        cid = state.order[flow["index"]] if flow["index"] < len(state.order) else None
        if cid is not None:
            _turn_ended(ctx, cid, flow.get("explained") is True)
    elif at == "round_end":
        ctx.emit("round.ended", round=state.round)
        _round_start(ctx, state.round + 1)
    elif at == "round_start":
        _round_start(ctx, 1)
    else:
        start_next_turn(ctx, flow["index"])


def check_victory(ctx: Ctx) -> bool:
    """ENG-9: end the battle when the ruleset says it is over. True when ended."""
    state = ctx.state
    if state.phase != "active":
        return state.phase == "ended"
    result = ctx.rules.check_victory(state)
    if result is None:
        return False
    ctx.emit("battle.ended", result=result)
    return True


def finish(ctx: Ctx) -> None:
    """After any accepted action: record stray rolls, end the battle or a turn that cannot go on."""
    ctx.flush_rolls()
    state = ctx.state
    for _ in range(20):
        if state.phase != "active" or state.pending is not None or not state.extra.get("flow"):
            break
        _continue_flow(ctx)
    if state.phase != "active" or state.pending is not None:
        return
    if check_victory(ctx):
        return
    c = state.current()
    if c is None or not ctx.rules.can_take_turn(state, c):
        if c is not None:
            ctx.emit("turn.ended", combatant=c.id, reason="cannot act")
            start_next_turn(ctx, state.turn + 1)
        else:
            start_next_turn(ctx, state.turn)
