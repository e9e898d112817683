"""The battle page: first render for each role, hidden information, setup."""

from __future__ import annotations

import pytest

from tests.live.table import SECRET_HP, fresh_live_caches, table

pytestmark = pytest.mark.django_db
__all__ = ["fresh_live_caches"]  # autouse fixture


def test_the_gm_sees_every_region_and_exact_monster_hp(client):
    users, _, battle = table()
    client.force_login(users["gm"])
    response = client.get(f"/battles/{battle.pk}/")
    assert response.status_code == 200
    html = response.content.decode()
    for region in ('id="board"', 'id="tracker"', 'id="log"', 'id="gm-panel"', 'id="actions"', 'id="prompt"'):
        assert region in html
    assert str(SECRET_HP) in html
    assert 'ws-connect="/ws/battles/' in html
