"""The pure rules engine. No Django, Channels or vtt import, ever.

Public API (see each module's docstrings):

- ``core``: ``decide(state, action, dice) -> list[Event] | Refusal``,
  ``resolve(state, action, dice) -> (events, new_state) | Refusal``,
  ``apply(state, event)``, ``apply_all(state, events)``, ``replay(events)``,
  ``undo_cut(log)``, ``legal_actions(state, actor_id)``,
  ``view_for(state, Viewer)``, ``new_battle_event(ruleset, options, seed,
  width, height, blocked=(), content=None)``.
- ``dice``: ``Dice(seed, salt)``, ``ScriptedDice(faces)``, ``Roll``.
- ``actions``: ``Action``, ``Refusal``, ``ActionOption``; the parameters of every
  action kind (``ACTION_PARAMS``, ``param_problems``, ``chosen_params``);
  ``events``: ``Event`` and the fields of every event type (``EVENT_FIELDS``).
- ``state``: ``BattleState``, ``Combatant``, ``Decision`` (JSON snapshots).
- ``board``: grid distances, range/area shapes, BFS paths; rows.
- ``rulesets``: the registry and the plugin API (``rulesets/base.py``).
- ``view``: ``Viewer``, ``view_for``, ``event_for`` (per-viewer projections).
- ``autoplay``: ``random_action`` (benchmarks, property tests, simple NPCs).
"""
