from __future__ import annotations

import pytest


@pytest.mark.django_db
def test_unknown_pages_get_the_project_404_page(client):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert b"Not found" in response.content
    assert b"not a member of" in response.content


@pytest.mark.django_db
def test_a_non_members_campaign_url_reads_as_not_found(client, django_user_model):
    user = django_user_model.objects.create_user("stranger", password="pw-stranger-1")
    client.force_login(user)
    response = client.get("/campaigns/999999/")
    assert response.status_code == 404
    assert b"Back to the start page" in response.content
