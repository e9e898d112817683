"""The demo loader: logins printed, one campaign per ruleset with a battle in progress, idempotent."""

from __future__ import annotations

from io import StringIO

from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import reverse

from combat import services
from combat.engine.rulesets import RULESETS
from combat.models import Battle
from vtt.models import Campaign, Character, Invite, Membership


def snapshot():
    return (
        sorted(get_user_model().objects.values_list("username", "password", "is_staff")),
        sorted(Campaign.objects.values_list("name", "ruleset", "options")),
        sorted(Membership.objects.values_list("user__username", "campaign__name", "role")),
        sorted((c.campaign.name, c.name, c.kind, c.owner_id, repr(c.sheet)) for c in Character.objects.all()),
        Invite.objects.count(),
        sorted(Battle.objects.values_list("campaign__name", "name", "status", "seq", "seed")),
    )


def test_seed_demo_is_idempotent_and_gm_sees_one_campaign_per_ruleset(client, db):
    out = StringIO()
    call_command("seed_demo", stdout=out)
    text = out.getvalue()
    for login in ("gm / ", "alice / ", "bob / "):
        assert login in text
    first = snapshot()
    call_command("seed_demo", stdout=StringIO())
    assert snapshot() == first

    assert Campaign.objects.count() == len(RULESETS) == 4
    for campaign in Campaign.objects.all():
        kinds = sorted(campaign.characters.values_list("kind", flat=True))
        assert kinds.count("pc") == 2 and kinds.count("monster") >= 2
        for character in campaign.characters.all():
            character.full_clean()  # every seeded sheet is valid for its ruleset
        owners = set(campaign.characters.filter(kind="pc").values_list("owner__username", flat=True))
        assert owners == {"alice", "bob"}

    # A battle in progress in each: the table shows at once, waiting on a player (its hero's turn or a
    # question to them), the monsters' turns before it played by the tactics.
    for battle in Battle.objects.all():
        assert battle.name == "Demo battle" and battle.status == Battle.Status.ACTIVE
        state = services.load_state(battle)
        waiting = state.pending.controller if state.pending else state.current().controller
        players = {str(u.pk) for u in get_user_model().objects.filter(username__in=("alice", "bob"))}
        assert waiting in players, (battle.campaign.name, waiting)
        assert {c.character_id for c in state.combatants.values()} <= set(
            battle.campaign.characters.values_list("pk", flat=True)
        )
    assert Battle.objects.count() == 4

    assert client.login(username="gm", password="gm-demo-pass")
    page = client.get(reverse("campaigns")).content.decode()
    assert page.count('class="card"') == 4
    for ruleset in RULESETS.values():
        assert f"Demo: {ruleset.name}".replace("&", "&amp;") in page
