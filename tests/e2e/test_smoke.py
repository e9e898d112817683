from __future__ import annotations

import pytest

from tests.e2e.conftest import PHONE


@pytest.mark.django_db(transaction=True)
def test_home_page_loads_in_chromium_on_a_phone(asgi_server, browser, shot):
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    response = page.goto(asgi_server + "/")
    assert response.status == 200
    shot(page, "smoke-home-phone")
    context.close()
