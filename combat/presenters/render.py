"""Rendering the battle's regions and pieces: the one place that picks a template engine and caches HTML.

Two engines, each where a figure put it. The page and its regions are Django templates
(``combat/battle.html`` and its named partials: ``{% partialdef board inline %}``...), so the page
extends the site's base and its partials serve the first render, the HTMX replies and the pushes
alike. The small pieces rendered anew on every change that alters them (``PIECES``: a token, a
tracker row, a token's menu, a log entry, one option form of the acting combatant)
are Jinja2 templates
(``templates/jinja2/combat/``, ``combat.jinja``) with the same markup, given to the regions as
rendered HTML: the option forms render in 0.22 ms instead of 0.55-0.84 ms with Django's engine, and
``bench/request.py`` measured the push's render 2.36/2.32/2.54 -> 2.15/2.27/2.15 ms (paired runs;
docs/performance.md, round 5). The regions in Jinja2 too measured nothing (2.24/2.46/2.47 against
2.34/2.37/2.39 ms), so they stayed Django's.

A cached piece (``fragment``) is keyed by its template and the whole context it receives
(``freeze``): a key always stands for the bytes a render of that context gives, on every process,
and nothing lists beside a template what it shows. A caller hands a piece exactly what its template
reads (small contexts hit more often); a region or piece that holds a form is never cached, since
each form carries a fresh client token.
"""

from __future__ import annotations

import marshal
from typing import Any

from django.template import Context, engines
from django.template.loader import get_template
from django.utils.safestring import SafeString

from combat.caches import FRAGMENTS, TEMPLATES

TEMPLATE = "combat/battle.html"
# The pieces rendered on every change that alters them, as Jinja2 templates (``combat.jinja``).
TOKEN, TRACKER_ROW, TOKEN_MENU, LOG_ENTRY, ACTION_OPT = (
    f"combat/{name}.html" for name in ("token", "tracker_row", "token_menu", "log_entry", "action_opt")
)
PIECES = frozenset({TOKEN, TRACKER_ROW, TOKEN_MENU, LOG_ENTRY, ACTION_OPT})


def freeze(ctx: dict[str, Any]) -> bytes:
    """A context as a cache key: equal keys render equal bytes.

    The context's ``marshal`` form (format 2: no back-references, so equal values give equal bytes):
    exact types, so a bool, a float or a tuple stays apart from the int or list it equals
    (``True == 1``, but renders "True"), and dicts keep their order. Anything else (a string marked
    safe, an object) is refused with ValueError: such a context is rendered, never cached. About a
    third of the time of walking the context in Python.
    """
    return marshal.dumps(ctx, 2)


def fragment(template: str, ctx: dict[str, Any]) -> SafeString:
    """The HTML of ``template`` given ``ctx``, rendered once per context (``freeze``)."""
    key = (template, freeze(ctx))
    html: str | None = FRAGMENTS.get(key)
    if html is None:
        # Kept as a plain str: the garbage collector does not track one (a SafeString it does), and
        # the cache's 20,000 pieces made every full collection of a server process slower.
        html = FRAGMENTS[key] = str.__str__(render_one(template, ctx))  # a str, never a subclass
    return SafeString(html)  # our template's output (mark_safe's lazy-argument check costs more than this)


def joined(pieces: list[SafeString]) -> SafeString:
    """Rendered pieces as one value a region inserts (a template loop costs a node per piece)."""
    return SafeString("".join(pieces))  # our fragments


def _template(name: str) -> Any:
    """A Jinja2 piece (``PIECES``), a template ("combat/x.html") or a partial of the battle page ("board")."""
    tpl = TEMPLATES.get(name)
    if tpl is None:
        if name in PIECES:
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
    if name in PIECES:
        out: str = tpl.render(ctx)
        return out
    html: str = tpl.template.render(Context(ctx, autoescape=tpl.backend.engine.autoescape, use_l10n=False))
    return html


def render_region(region: str, ctx: dict[str, Any], resting: dict[str, Any] | None = None) -> str:
    """A region of the battle page; from the cache when it is ``resting``: the whole context it
    receives when it holds no form (see ``combat.presenters.OWN_REGIONS``)."""
    if resting is None:
        return render_one(region, ctx)
    try:
        return fragment(f"{TEMPLATE}#{region}", resting)
    except ValueError:  # a value no key holds (a sheet may keep anything): render it
        return render_one(region, resting)


def render_regions(regions: tuple[str, ...], ctx: dict[str, Any]) -> str:
    """Concatenated regions; each is one element with an id, swapped out of band."""
    return "".join(render_one(region, ctx) for region in regions)
