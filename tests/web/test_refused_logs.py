"""Logs an operator can read: a refused request is one line without a traceback, and a client that
went away during a push is not an error (vtt/logfilters.py, wired in settings.LOGGING)."""

from __future__ import annotations

import logging

import pytest
from autobahn.exception import Disconnected

from combat import services
from tests.table import make_campaign, make_user

HX = {"HTTP_HX_REQUEST": "true"}


@pytest.mark.django_db
def test_logs_a_403_on_a_forged_request_is_one_line_without_a_traceback(client, caplog):
    gm, player = make_user("gm"), make_user("player")
    campaign = make_campaign(gm, "luck", player=[player])
    battle = services.create_battle(campaign, gm, "Ford", 8, 6, ruleset="luck", seed=5).battle_id
    client.force_login(player)
    caplog.set_level(logging.WARNING)
    caplog.clear()
    # A player forges the GM's request: asking for the odds, then cancelling them.
    assert client.post(f"/battles/{battle}/odds", **HX).status_code == 403
    assert client.post(f"/battles/{battle}/odds/cancel", **HX).status_code == 403
    refused = [r for r in caplog.records if getattr(r, "status_code", None) == 403]
    assert len(refused) == 2 and len(caplog.records) == 2  # one record per refused request
    for record in refused:
        assert record.exc_info is None and record.levelno == logging.WARNING
        line = logging.Formatter().format(record)
        assert line.startswith("Forbidden (Permission denied): /battles/") and "\n" not in line


def test_logs_a_client_gone_during_a_push_is_not_an_error(caplog):
    caplog.set_level(logging.INFO)
    gone = Disconnected("Attempt to send on a closed protocol")
    # What daphne logs when a push reaches a socket whose client just left, and what the fan-out logs
    # when a socket's send raises it.
    logging.getLogger("daphne.server").error("Exception inside application: %s", gone, exc_info=gone)
    try:
        raise gone
    except Disconnected:
        logging.getLogger("combat.fanout").exception("a socket failed to handle a battle.changed message")
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []
    # Any other failure of the same loggers is still an error, with its traceback.
    broken = ValueError("a real bug")
    logging.getLogger("daphne.server").error("Exception inside application: %s", broken, exc_info=broken)
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and errors[0].exc_info is not None
