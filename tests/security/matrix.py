"""The URL matrix of the site: every named URL of ``vtt`` and ``combat``, the methods it answers, and
what each persona gets back (in ``ROLES`` order: anonymous, outsider, admin, observer, player,
other_player, gm): a status code, or ``L`` for a redirect to the login page.

``matrix_ids(world)`` makes the objects the rows' URL arguments name, in the ``world`` of
tests/security/conftest.py.
"""

from __future__ import annotations

import io
from typing import Any

from PIL import Image

from tests.security.conftest import combatant_named
from vtt import homebrew
from vtt.images import map_from
from vtt.models import ChatMessage, ContentEntry, Invite, MapImage, Membership

L = "login"


def matrix_ids(world: dict[str, Any]) -> dict[str, Any]:
    c = world["campaign"]
    chars = world["characters"]
    invite = Invite.objects.create(campaign=c, created_by=world["users"]["gm"], max_uses=5)
    observer_membership = Membership.objects.get(campaign=c, user=world["users"]["observer"])
    picture = map_from(io.BytesIO(b"".join(_png())))
    library_map = MapImage.create_from(c, "Bridge", picture)
    ability = next(iter(c.ruleset_class.content["abilities"].values()))
    ContentEntry.objects.create(
        campaign=c, kind="abilities", key="homebrew_bolt", data={**ability, "name": "Bolt"}
    )
    monster = next(iter(homebrew.builtin(c.ruleset_class)[homebrew.MONSTERS].values()))
    ContentEntry.objects.create(
        campaign=c, kind=homebrew.MONSTERS, key="wight", data={**monster, "name": "Wight"}
    )
    users = world["users"]
    said = ChatMessage.objects.create(campaign=c, author=users["player"], text="hi", parts=[{"text": "hi"}])
    whisper = ChatMessage.objects.create(
        campaign=c, author=users["gm"], audience="one", recipient=users["player"], text="psst"
    )
    return {
        "line": said.pk,
        "whisper": whisper.pk,
        "ckind": "abilities",
        "ckey": "homebrew_bolt",
        "mkind": homebrew.MONSTERS,
        "mkey": "wight",
        "campaign": c.pk,
        "battle": world["battle"].pk,
        "setup": world["setup"].pk,
        "ayla": chars["ayla"].pk,
        "goblin": chars["goblin"].pk,
        "goblin_token": combatant_named(world["battle"], "Goblin"),
        "invite": invite.pk,
        "token": invite.token,
        "observer_m": observer_membership.pk,
        "map": library_map.pk,
        "map_name": library_map.image.name,
    }


def _png():
    out = io.BytesIO()
    Image.new("RGB", (40, 30), (90, 60, 30)).save(out, "PNG")
    yield out.getvalue()


def _act(world: dict[str, Any], kind: str, name: str | None = None, **fields: Any) -> dict[str, Any]:
    battle = world["battle"]
    data = {"kind": kind, "expected_seq": str(battle.seq), **fields}
    if name:
        data["actor"] = combatant_named(battle, name)
    return data


# (row id, url name, args (keys of _ids), method, data builder or None, expected per role)
MATRIX: list[tuple[str, str, tuple[str, ...], str, Any, tuple[Any, ...]]] = [
    # anonymous  outsider admin observer player other gm
    ("home", "home", (), "get", None, (200, 302, 302, 302, 302, 302, 302)),
    ("login", "login", (), "get", None, (200, 302, 302, 302, 302, 302, 302)),
    ("logout", "logout", (), "post", lambda w: {}, (302,) * 7),
    ("logout-get", "logout", (), "get", None, (405,) * 7),
    ("signup", "signup", (), "get", None, (200, 302, 302, 302, 302, 302, 302)),
    ("campaigns", "campaigns", (), "get", None, (L, 200, 200, 200, 200, 200, 200)),
    ("campaign_create", "campaign_create", (), "get", None, (L, 200, 200, 200, 200, 200, 200)),
    ("campaign", "campaign", ("campaign",), "get", None, (L, 404, 404, 200, 200, 200, 200)),
    ("campaign_edit", "campaign_edit", ("campaign",), "get", None, (L, 404, 404, 403, 403, 403, 200)),
    (
        "campaign_edit-post",
        "campaign_edit",
        ("campaign",),
        "post",
        lambda w: {"name": ""},
        (L, 404, 404, 403, 403, 403, 200),
    ),
    (
        "member_role",
        "member_role",
        ("campaign", "observer_m"),
        "post",
        lambda w: {"role": "player"},
        (L, 404, 404, 403, 403, 403, 302),
    ),
    (
        "invite_create",
        "invite_create",
        ("campaign",),
        "post",
        lambda w: {"role": "player", "expires_in": "7", "max_uses": "3"},
        (L, 404, 404, 403, 403, 403, 302),
    ),
    (
        "invite_revoke",
        "invite_revoke",
        ("campaign", "invite"),
        "post",
        lambda w: {},
        (L, 404, 404, 403, 403, 403, 302),
    ),
    # Anonymous visitors get the welcome page (sign up or log in to join); nothing changes for them.
    ("join", "join", ("token",), "get", None, (200, 200, 200, 200, 200, 200, 200)),
    ("join-post", "join", ("token",), "post", lambda w: {}, (200, 302, 302, 302, 302, 302, 302)),
    # Keeping an account is a guest's (tests/web/test_guests.py); any other account is sent to its campaigns.
    ("keep_account", "keep_account", (), "get", None, (L, 302, 302, 302, 302, 302, 302)),
    (
        "keep_account-post",
        "keep_account",
        (),
        "post",
        lambda w: {
            "username": "kept",
            "password1": "a-long-pass-phrase-7",
            "password2": "a-long-pass-phrase-7",
        },
        (L, 302, 302, 302, 302, 302, 302),
    ),
    (
        "member_remove",
        "member_remove",
        ("campaign", "observer_m"),
        "post",
        lambda w: {},
        (L, 404, 404, 403, 403, 403, 302),
    ),
    # "Try a battle": a visitor gets a table of their own; an account is sent to its campaigns.
    ("trial_start", "trial_start", (), "post", lambda w: {"ruleset": "luck"}, (302,) * 7),
    ("trial_start-get", "trial_start", (), "get", None, (405,) * 7),
    ("character_create", "character_create", ("campaign",), "get", None, (L, 404, 404, 403, 200, 200, 200)),
    ("character-pc", "character", ("campaign", "ayla"), "get", None, (L, 404, 404, 200, 200, 200, 200)),
    (
        "character-monster",
        "character",
        ("campaign", "goblin"),
        "get",
        None,
        (L, 404, 404, 200, 200, 200, 200),
    ),
    (
        "character_edit-own",
        "character_edit",
        ("campaign", "ayla"),
        "get",
        None,
        (L, 404, 404, 403, 200, 403, 200),
    ),
    (
        "character_edit-monster",
        "character_edit",
        ("campaign", "goblin"),
        "get",
        None,
        (L, 404, 404, 403, 403, 403, 200),
    ),
    (
        "character_delete-monster",
        "character_delete",
        ("campaign", "goblin"),
        "post",
        lambda w: {},
        (L, 404, 404, 403, 403, 403, 302),
    ),
    ("battle_new", "battle_new", ("campaign",), "get", None, (L, 404, 404, 403, 403, 403, 200)),
    (
        "battle_new-post",
        "battle_new",
        ("campaign",),
        "post",
        lambda w: {"name": "Bridge", "width": "8", "height": "6"},
        (L, 404, 404, 403, 403, 403, 302),
    ),
    ("battle", "battle", ("battle",), "get", None, (L, 404, 404, 200, 200, 200, 200)),
    ("battle-setup", "battle", ("setup",), "get", None, (L, 404, 404, 200, 200, 200, 200)),
    ("battle-post", "battle", ("battle",), "post", lambda w: {}, (L, 405, 405, 405, 405, 405, 405)),
    ("battle_log", "battle_log", ("battle",), "get", None, (L, 404, 404, 200, 200, 200, 200)),
    # A token's menu, fetched when the GM opens it: the GM's alone (it shows the hidden HP).
    (
        "battle_menu",
        "battle_menu",
        ("battle", "goblin_token"),
        "get",
        None,
        (L, 404, 404, 403, 403, 403, 200),
    ),
    # The plan menu of a tap on the Goblin (``?target=``): every member gets an answer (plans for whoever
    # acts now: Ayla's owner and the GM; the others are told it is not their turn), strangers nothing.
    ("battle_plans", "battle_plans", ("battle",), "get", None, (L, 404, 404, 200, 200, 200, 200)),
    # The acting player (Ayla's owner) ends Ayla's turn; others try it, or act for Bram / the Goblin.
    (
        "act-own-character",
        "battle_act",
        ("battle",),
        "post",
        lambda w: _act(w, "end_turn", "Ayla"),
        (L, 404, 404, 403, 200, 403, 200),
    ),
    (
        "act-other-players-character",
        "battle_act",
        ("battle",),
        "post",
        lambda w: _act(w, "end_turn", "Bram"),
        (L, 404, 404, 403, 403, 422, 422),
    ),
    (
        "act-npc",
        "battle_act",
        ("battle",),
        "post",
        lambda w: _act(w, "end_turn", "Goblin"),
        (L, 404, 404, 403, 403, 403, 422),
    ),
    (
        "act-answer-nothing-pending",
        "battle_act",
        ("battle",),
        "post",
        lambda w: _act(w, "answer", "Ayla", decision="d1", choice="yes"),
        (L, 404, 404, 403, 422, 422, 422),
    ),
    (
        "act-gm-override",
        "battle_act",
        ("battle",),
        "post",
        lambda w: _act(w, "gm.set_hp", combatant=combatant_named(w["battle"], "Goblin"), hp="7"),
        (L, 404, 404, 403, 403, 403, 200),
    ),
    ("act-get", "battle_act", ("battle",), "get", None, (L, 405, 405, 405, 405, 405, 405)),
    ("battle_start", "battle_start", ("setup",), "post", lambda w: {}, (L, 404, 404, 403, 403, 403, 200)),
    ("battle_undo", "battle_undo", ("battle",), "post", lambda w: {}, (L, 404, 404, 403, 403, 403, 200)),
    # The odds of a set-up are the GM's alone (players never see them).
    ("battle_odds", "battle_odds", ("setup",), "get", None, (L, 404, 404, 403, 403, 403, 200)),
    ("battle_odds-post", "battle_odds", ("setup",), "post", lambda w: {}, (L, 404, 404, 403, 403, 403, 200)),
    (
        "battle_odds_cancel",
        "battle_odds_cancel",
        ("setup",),
        "post",
        lambda w: {},
        (L, 404, 404, 403, 403, 403, 200),
    ),
    (
        "battle_add",
        "battle_add",
        ("setup",),
        "post",
        lambda w: {"character": str(w["characters"]["goblin"].pk), "count": "2"},
        (L, 404, 404, 403, 403, 403, 200),
    ),
    ("battle_map", "battle_map", ("battle",), "get", None, (L, 404, 404, 403, 403, 403, 200)),
    (
        "battle_map-post",
        "battle_map",
        ("battle",),
        "post",
        lambda w: {"library": "", "fit": "on"},
        (L, 404, 404, 403, 403, 403, 302),
    ),
    ("map_library", "map_library", ("campaign",), "get", None, (L, 404, 404, 403, 403, 403, 200)),
    (
        "map_library-post",
        "map_library",
        ("campaign",),
        "post",
        lambda w: {"name": "No file"},
        (L, 404, 404, 403, 403, 403, 400),
    ),
    (
        "map_delete",
        "map_delete",
        ("campaign", "map"),
        "post",
        lambda w: {},
        (L, 404, 404, 403, 403, 403, 302),
    ),
    # Uploaded images: members only, and a stranger cannot tell a missing file from a forbidden one.
    ("media", "media", ("map_name",), "get", None, (404, 404, 404, 200, 200, 200, 200)),
    # Campaign content (the GM's) and kept battles.
    ("content", "content", ("campaign",), "get", None, (L, 404, 404, 403, 403, 403, 200)),
    ("content_export", "content_export", ("campaign",), "get", None, (L, 404, 404, 403, 403, 403, 200)),
    ("content_import", "content_import", ("campaign",), "get", None, (L, 404, 404, 403, 403, 403, 200)),
    (
        "content_import-post",
        "content_import",
        ("campaign",),
        "post",
        lambda w: {},
        (L, 404, 404, 403, 403, 403, 400),
    ),
    (
        "content_create",
        "content_create",
        ("campaign", "ckind"),
        "get",
        None,
        (L, 404, 404, 403, 403, 403, 200),
    ),
    (
        "content_create-post",
        "content_create",
        ("campaign", "ckind"),
        "post",
        lambda w: {"def_name": ""},
        (L, 404, 404, 403, 403, 403, 200),
    ),
    (
        "content_edit",
        "content_edit",
        ("campaign", "ckind", "ckey"),
        "get",
        None,
        (L, 404, 404, 403, 403, 403, 200),
    ),
    (
        "content_delete",
        "content_delete",
        ("campaign", "ckind", "ckey"),
        "post",
        lambda w: {},
        (L, 404, 404, 403, 403, 403, 302),
    ),
    (
        "content_character",
        "content_character",
        ("campaign", "mkind", "mkey"),
        "post",
        lambda w: {},
        (L, 404, 404, 403, 403, 403, 302),
    ),
    ("battle_replay-running", "battle_replay", ("battle",), "get", None, (L, 404, 404, 302, 302, 302, 302)),
    ("battle_export", "battle_export", ("battle",), "get", None, (L, 404, 404, 403, 403, 403, 200)),
    ("battle_summary", "battle_summary", ("battle",), "get", None, (L, 404, 404, 403, 403, 403, 200)),
    (
        "battle_summary-post",
        "battle_summary",
        ("battle",),
        "post",
        lambda w: {},
        (L, 404, 404, 403, 403, 403, 302),
    ),
    # The chat: members read (a whisper only its two ends), players and the GM write, authors edit,
    # a GM deletes any line.
    ("chat", "chat", ("campaign",), "get", None, (L, 404, 404, 400, 400, 400, 400)),
    ("chat-post", "chat", ("campaign",), "post", lambda w: {"text": "hi"}, (L, 404, 404, 403, 200, 200, 200)),
    ("chat_line", "chat_line", ("campaign", "line"), "get", None, (L, 404, 404, 200, 200, 200, 200)),
    (
        "chat_line-whisper",
        "chat_line",
        ("campaign", "whisper"),
        "get",
        None,
        (L, 404, 404, 404, 200, 404, 200),
    ),
    ("chat_edit", "chat_edit", ("campaign", "line"), "get", None, (L, 404, 404, 404, 200, 404, 404)),
    (
        "chat_edit-post",
        "chat_edit",
        ("campaign", "line"),
        "post",
        lambda w: {"text": "changed"},
        (L, 404, 404, 403, 200, 403, 403),
    ),
    (
        "chat_delete",
        "chat_delete",
        ("campaign", "whisper"),
        "post",
        lambda w: {},
        (L, 404, 404, 404, 403, 404, 200),
    ),
    ("battle_import", "battle_import", ("campaign",), "get", None, (L, 404, 404, 403, 403, 403, 200)),
    (
        "battle_import-post",
        "battle_import",
        ("campaign",),
        "post",
        lambda w: {},
        (L, 404, 404, 403, 403, 403, 400),
    ),
]
