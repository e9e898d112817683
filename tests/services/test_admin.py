"""The battle admin is read-only: it shows and checks, services write."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from combat.models import Battle, BattleEvent

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client):
    admin = get_user_model().objects.create_superuser("root", "root@example.com", "pw-root-123")
    client.force_login(admin)
    return client


def test_battles_and_events_are_listed_and_shown_read_only(staff, battle):
    event = BattleEvent.objects.filter(battle=battle).first()
    for url in (
        "/admin/combat/battle/",
        f"/admin/combat/battle/{battle.pk}/change/",
        "/admin/combat/battleevent/",
        f"/admin/combat/battleevent/{event.pk}/change/",
    ):
        response = staff.get(url)
        assert response.status_code == 200, url
    assert staff.get("/admin/combat/battle/add/").status_code == 403
    response = staff.post(f"/admin/combat/battle/{battle.pk}/change/", {"name": "Renamed"})
    assert response.status_code == 403
    assert Battle.objects.get(pk=battle.pk).name == "Gate fight"


def test_the_check_action_reports_agreement_and_drift(staff, battle):
    url = "/admin/combat/battle/"
    response = staff.post(url, {"action": "check_against_log", "_selected_action": [battle.pk]}, follow=True)
    assert "snapshot agrees with" in response.content.decode()
    Battle.objects.filter(pk=battle.pk).update(snapshot={**battle.snapshot, "round": 99})
    response = staff.post(url, {"action": "check_against_log", "_selected_action": [battle.pk]}, follow=True)
    assert "differs from its log" in response.content.decode()
