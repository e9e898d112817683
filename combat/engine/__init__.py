"""The pure rules engine. No Django, Channels or vtt import, ever.

Public API (see each module's docstrings):

- ``core``: ``decide(state, action, dice) -> list[Event] | Refusal``,
  ``resolve(state, action, dice) -> (events, new_state) | Refusal``,
  ``apply(state, event)``, ``apply_all(state, events)``, ``replay(events)``,
  ``undo_cut(log)``, ``legal_actions(state, actor_id)``,
  ``view_for(state, Viewer)``, ``new_battle_event(ruleset, options, seed,
  width, height, blocked=(), content=None)``.
- ``dice``: ``Dice(seed, salt)``, ``ScriptedDice(faces)``, ``Roll``.
- ``actions``: ``Action``, ``Refusal``, ``ActionOption``; the parameters of the
  generic action kinds (``ACTION_PARAMS``, ``param_problems``, ``chosen_params``);
  ``events``: ``Event``, ``EventType`` and the generic events (``GENERIC_EVENTS``);
  a ruleset registers its own kinds and events (``Ruleset.params``, ``Ruleset.events``).
- ``log``: ``describe`` (an event as a log entry: its sentence and dice); ``words``:
  the helpers of every sentence and the generic events' sentences.
- ``state``: ``BattleState``, ``Combatant``, ``Decision`` (JSON snapshots).
- ``board``: grid distances, range/area shapes, BFS paths; rows.
- ``rulesets``: the registry (``get_ruleset``, ``event_type``) and the plugin API
  (``rulesets/base.py``); one package per ruleset, each of the same shape.
- ``view``: ``Viewer``, ``view_for``, ``event_for`` (per-viewer projections).
- ``autoplay``: ``random_action`` (benchmarks, property tests).
- ``tactics``: ``Tactics.choose(state, sees)`` -> ``Choice(action, reason)``, the policy of a
  combatant left to the rules (one ``tactics.py`` per ruleset package; ``tactics_for(state)``).
- ``simulate``: ``play(setup, seed)``, ``run``/``run_parallel`` (a process pool) and ``odds``: a planned
  fight played many times.
"""
