"""Every log line once: a battle made from the new-battle form tells each of its events once.

The form's set-up is one transaction of several writes (the battle, then each combatant); their
after-commit hooks all run once it commits. The server process that made the battle once kept a log
copy of them in which the later set-up events came twice ("Grul joins the battle (enemy)." twice),
on the page, in HTMX replies and in pushes, for the GM and the players alike.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from combat.models import Battle
from tests.table import assert_each_entry_once, grul_table, new_battle_form

# The set-up commits as on a server, so its after-commit hooks run (and the live push with them).
pytestmark = pytest.mark.django_db(transaction=True)


def test_a_battle_made_from_the_form_tells_each_event_once_on_the_page_and_in_replies(client):
    users, campaign, grul = grul_table()
    client.force_login(users["gm"])
    response = client.post(reverse("battle_new", args=[campaign.pk]), new_battle_form(grul))
    battle = Battle.objects.get(campaign=campaign)
    assert response.status_code == 302
    for name in ("gm", "player"):
        client.force_login(users[name])
        page = client.get(reverse("battle", args=[battle.pk])).content.decode()
        # The players meet Grul once the battle begins (below): set-up is the GM's secret.
        assert page.count("Grul joins the battle (enemy).") == (1 if name == "gm" else 0), name
        assert_each_entry_once(page)
    client.force_login(users["gm"])
    reply = client.post(
        reverse("battle_start", args=[battle.pk]), {"expected_seq": str(battle.seq)}, HTTP_HX_REQUEST="true"
    )
    assert reply.status_code == 200
    assert_each_entry_once(reply.content.decode())
    client.force_login(users["player"])
    page = client.get(reverse("battle", args=[battle.pk])).content.decode()
    # From the start on they see Grul; the set-up before it stays the GM's (a start replays no past).
    assert page.count("Grul joins the battle (enemy).") == 0 and "Grul rolls initiative" in page
    assert_each_entry_once(page)
