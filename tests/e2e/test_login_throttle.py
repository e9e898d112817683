"""Login throttling on the real ASGI server, as it runs in production (django-axes on daphne)."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model

from tests.e2e.conftest import LAPTOP, Server

PASSWORD = "throttle-pass-4k"


@pytest.fixture
def throttled_server(transactional_db):
    server = Server(env={"AXES_ENABLED": "1"})
    try:
        yield server
    finally:
        server.stop()


def _try(page, base: str, username: str, password: str) -> int:
    page.goto(base + "/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.get_by_role("button", name="Log in").click()
    return answer.value.status


def test_a_browser_is_locked_out_after_repeated_wrong_passwords(throttled_server, browser):
    get_user_model().objects.create_user("mallory-target", password=PASSWORD)
    get_user_model().objects.create_user("bystander", password=PASSWORD)
    context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    base = throttled_server.url
    limit = settings.LOGIN_FAILURES_PER_ACCOUNT
    statuses = [_try(page, base, "mallory-target", f"guess-{i}") for i in range(limit)]
    assert statuses[:-1] == [200] * (limit - 1)  # the form again, with its error
    assert statuses[-1] == 429
    # Locked out: the right password is refused too, and no session is opened.
    assert _try(page, base, "mallory-target", PASSWORD) == 429
    page.goto(base + "/campaigns/")
    assert "/accounts/login/" in page.url
    # Another account from the same address is not affected.
    assert _try(page, base, "bystander", PASSWORD) == 302
    context.close()
