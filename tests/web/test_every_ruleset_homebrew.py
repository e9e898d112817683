"""Every registered ruleset's homebrew forms, with no entry to write per ruleset: each content kind it
has (and its monsters) takes a copy of a built-in definition through its form, and refuses it with the
name left out, on the name's field, writing nothing. ``tests/content.py``'s ``CASES`` adds, for the
rulesets listed there, homebrew that is then played in a battle (tests/web/test_homebrew.py)."""

from __future__ import annotations

from typing import Any

import pytest

from combat.engine.rulesets import RULESETS
from tests.content import form_data
from tests.table import make_campaign
from tests.toy import build_grid_from_the_guide
from vtt import homebrew
from vtt.models import ContentEntry

pytestmark = pytest.mark.django_db
GUIDE_GRID = "grid (docs/RULESET_GUIDE.md)"


def _post(schema: Any, values: dict[str, Any]) -> dict[str, Any]:
    """The form as a browser posts it: a list with choices as ticked boxes (one value each, none when
    empty), anything else as ``form_data`` writes it."""
    data = form_data(values)
    for field in schema:
        if field.kind == "list" and field.choices:
            data.pop(f"def_{field.key}", None)
            if values.get(field.key):
                data[f"def_{field.key}"] = list(values[field.key])
    return data


@pytest.mark.parametrize("key", [*sorted(RULESETS), GUIDE_GRID])
def test_each_content_kind_takes_a_copy_of_a_built_in_definition_and_refuses_one_without_a_name(
    client, gm, key, tally, monkeypatch, tmp_path
):
    if key == GUIDE_GRID:  # the guide's grid ruleset, built from docs/RULESET_GUIDE.md
        grid = build_grid_from_the_guide(tmp_path)
        monkeypatch.setitem(RULESETS, grid.key, grid)
        key = grid.key
    campaign = make_campaign(gm, key)
    client.force_login(gm)
    builtin = homebrew.builtin(campaign.ruleset_class)
    for kind in homebrew.kinds_of(campaign.ruleset_class):  # the kinds a GM may write (monsters always)
        definitions = builtin.get(kind)
        if not definitions:
            continue
        values = {**next(iter(definitions.values())), "name": f"Copy of a {kind}"}
        url = f"/campaigns/{campaign.pk}/content/{kind}/new/"
        schema = homebrew.schema_for(campaign.ruleset_class, kind)
        refused = client.post(url, _post(schema, {**values, "name": ""}))
        assert refused.status_code == 200 and 'id="id_def_name_error"' in refused.content.decode(), kind
        assert not ContentEntry.objects.filter(campaign=campaign, kind=kind).exists()
        made = client.post(url, _post(schema, values))
        assert made.status_code == 302, (kind, made.content.decode()[:2000])
        entry = ContentEntry.objects.get(campaign=campaign, kind=kind)
        assert entry.data["name"] == values["name"]
        tally["kinds"] += 1
    assert tally["kinds"] >= 1  # the monsters at least
