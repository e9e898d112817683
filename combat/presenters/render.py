"""Rendering the battle's regions and pieces: the one place that picks a template engine.

The page and its regions are Django templates (``combat/battle.html`` and its named partials); the
small pieces rendered anew on every change that alters them (a token, a tracker row, a GM row, a log
entry, the acting combatant's option forms) are Jinja2 templates (``templates/jinja2/combat/``,
``combat.jinja``), given to the regions as rendered HTML.
"""

from __future__ import annotations

from typing import Any

from django.template import Context, engines
from django.template.loader import get_template
from django.utils.safestring import SafeString, mark_safe

from combat.table import FRAGMENTS, TEMPLATES

TEMPLATE = "combat/battle.html"
# The pieces rendered on every change that alters them, as Jinja2 templates (``combat.jinja``).
TOKEN, TRACKER_ROW, GM_ROW, LOG_ENTRY, ACTION_OPTS = (
    f"combat/{name}.html" for name in ("token", "tracker_row", "gm_row", "log_entry", "action_opts")
)
JINJA = frozenset({TOKEN, TRACKER_ROW, GM_ROW, LOG_ENTRY, ACTION_OPTS})
# The regions a viewer's own push carries (cached when they hold no form, see ``_own_region_key``).
USER_REGIONS = ("actions", "prompt", "sheet")


def fragment(template: str, key: Any, ctx: dict[str, Any]) -> SafeString:
    """The HTML of a small piece, rendered once per key (the key is everything the piece shows)."""
    full_key = (template, key)
    html: SafeString | None = FRAGMENTS.get(full_key)
    if html is None:
        html = FRAGMENTS[full_key] = mark_safe(render_one(template, ctx))  # noqa: S308 - our template
    return html


def _template(name: str) -> Any:
    """A Jinja2 piece (``JINJA``), a template ("combat/x.html") or a partial of the battle page ("board")."""
    tpl = TEMPLATES.get(name)
    if tpl is None:
        if name in JINJA:
            tpl = TEMPLATES[name] = engines["jinja2"].env.get_template(name)  # type: ignore[attr-defined]
        else:
            tpl = TEMPLATES[name] = get_template(
                name if name.endswith(".html") or "#" in name else f"{TEMPLATE}#{name}"
            )
    return tpl


def render_one(name: str, ctx: dict[str, Any]) -> str:
    """One template or partial, with localisation off: a number renders as ``str(n)``.

    That is what the en-us locale without thousand separators renders too (a test holds it),
    without Django's per-number format lookup (``number_format`` asks the active language of
    the thread every time: ~100 numbers per change, ~10-30 us each, a few ms per action).
    Jinja2 pieces render numbers as ``str(n)`` anyway.
    """
    tpl = _template(name)
    if name in JINJA:
        out: str = tpl.render(ctx)
        return out
    html: str = tpl.template.render(Context(ctx, autoescape=tpl.backend.engine.autoescape, use_l10n=False))
    return html


def render_regions(regions: tuple[str, ...], ctx: dict[str, Any]) -> str:
    """Concatenated regions; each is one element with an id, swapped out of band."""
    return "".join(render_one(region, ctx) for region in regions)


def _own_region_key(region: str, ctx: dict[str, Any]) -> Any:
    """What a viewer's own region shows, as a cache key; None when it must render (it holds a form).

    Forms carry the battle's seq and a fresh client token, so an action panel with options and a
    prompt with a question always render. Everything else a player's own regions show is in the key
    (``tests/engine/test_push_renders.py`` renders both ways in random battles and compares): most
    changes are someone else's turn, and a waiting player's panel, empty prompt and unchanged sheet
    are then cache hits instead of three renders.
    """
    if region == "actions":
        if ctx["acting"] is not None or ctx["is_gm"]:
            return None
        return (ctx["phase"], bool(ctx["has_combatant"]), ctx["current_name"])
    if region == "prompt":
        return None if ctx["prompt"] is not None else ()
    if region == "sheet":
        return (
            tuple((n["seq"], n["text"]) for n in ctx["notices"]),
            tuple(
                (
                    t["name"],
                    t["hp"],
                    t["max_hp"],
                    tuple(t["resources"].items()),
                    tuple(t.get("stats") or ()),
                    tuple((s["name"], s["power"], s["duration"]) for s in t["statuses"]),
                )
                for t in ctx["own"]
            ),
        )
    return None


def render_own(regions: tuple[str, ...], ctx: dict[str, Any]) -> str:
    """Like ``render_regions``, with a viewer's own regions taken from the cache when they hold no form."""
    out = []
    for region in regions:
        key = _own_region_key(region, ctx) if region in USER_REGIONS else None
        if key is None:
            out.append(render_one(region, ctx))
            continue
        try:
            out.append(fragment(f"{TEMPLATE}#{region}", key, ctx))
        except TypeError:  # a value of the key cannot be hashed (a list in a sheet): render it
            out.append(render_one(region, ctx))
    return "".join(out)
