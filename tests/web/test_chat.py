"""The campaign chat over HTTP: sending, rolling on the server, whispers, limits, editing and deleting.

Privacy across sockets is in tests/live/test_chat_socket.py; the commands' grammar in
tests/web/test_chat_commands.py.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.table import make_character
from vtt import chat
from vtt.models import CharacterKind, ChatMessage

pytestmark = pytest.mark.django_db


def send(as_user, user, campaign, text, htmx=True):
    client = as_user(user)
    extra = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    return client.post(reverse("chat", args=[campaign.pk]), {"text": text}, **extra)


def page(as_user, user, campaign) -> str:
    return as_user(user).get(reverse("campaign", args=[campaign.pk])).content.decode()


def roll_of(html: str) -> tuple[list[int], int]:
    """The kept faces and the total of the first roll in ``html``."""
    faces = [int(f) for f in re.findall(r'<b class="die die[^"]*"[^>]*>(\d+)</b>', html)]
    total = int(re.search(r'<strong class="roll-total">(-?\d+)</strong>', html).group(1))
    return faces, total


def test_a_message_is_kept_and_shown_on_the_campaign_page(as_user, campaign, player, other_player, observer):
    response = send(as_user, player, campaign, "Hello <b>table</b>")
    assert response.status_code == 200
    assert "Hello &lt;b&gt;table&lt;/b&gt;" in response.content.decode()
    for reader in (player, other_player, observer):
        html = page(as_user, reader, campaign)
        assert "Hello &lt;b&gt;table&lt;/b&gt;" in html and "<b>table</b>" not in html
    assert ChatMessage.objects.get().text == "Hello <b>table</b>"


def test_without_javascript_a_message_posts_and_comes_back_to_the_page(as_user, campaign, player):
    response = send(as_user, player, campaign, "no script here", htmx=False)
    assert response.status_code == 302 and response["Location"] == reverse("campaign", args=[campaign.pk])
    assert "no script here" in page(as_user, player, campaign)


def test_chat_dice_totals_equal_the_dice(as_user, campaign, player):
    for _ in range(20):
        ChatMessage.objects.all().delete()
        html = send(as_user, player, campaign, "/r 3d6+4 Damage").content.decode()
        faces, total = roll_of(html)
        assert len(faces) == 3 and all(1 <= f <= 6 for f in faces)
        assert total == sum(faces) + 4
        stored = ChatMessage.objects.get().parts[0]["roll"]
        assert stored["total"] == total and stored["label"] == "Damage" and stored["expr"] == "3d6+4"


def test_an_inline_roll_is_rolled_in_place(as_user, campaign, player):
    html = send(as_user, player, campaign, "I swing [[1d20+5]] at it").content.decode()
    faces, total = roll_of(html)
    assert total == faces[0] + 5
    body = re.search(r'<p class="chat-body">(.*?)</p>', html, re.S).group(1)
    assert body.startswith('I swing <span class="roll roll-inline') and body.endswith(" at it")


def test_a_roll_reads_a_sheet_value_by_name(as_user, campaign, player, other_player, gm, monster):
    make_character(campaign, "Mira Vell", owner=player, dex=3)
    make_character(campaign, "Bram", owner=other_player, dex=1)
    html = send(as_user, other_player, campaign, "/r 1d20+@mira.dex").content.decode()
    faces, total = roll_of(html)
    assert total == faces[0] + 3 and "Mira Vell: DEX 3" in html
    html = send(as_user, other_player, campaign, "/r 1d20+@dex Stealth").content.decode()
    faces, total = roll_of(html)
    assert total == faces[0] + 1 and "Bram: DEX 1" in html
    # A monster's sheet is the GM's: a player cannot roll with it (nor learn it exists with a number).
    response = send(as_user, player, campaign, "/r 1d20+@stone.dex")
    assert (
        response.status_code == 422
        and "No character you can see is called stone" in response.content.decode()
    )
    html = send(as_user, gm, campaign, "/r 1d20+@stone.dex").content.decode()
    assert "Stone Golem: DEX" in html


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "Write something first."),
        ("/r", "Write the dice after /r"),
        ("/r 2d", "Say how many faces"),
        ("/r 4d6x", "The roller does not understand “x”"),
        ("/r 1000d6", "At most 100 dice in one roll"),
        ("/r 1d100000", "A die has 1 to 1000 faces"),
        ("roll [[1d1e1]]", "explode or be rerolled on at most half its faces"),
        ("/dance now", "There is no command /dance"),
        ("/w", "Write a name and your message"),
        ("/w nobody hello", "Nobody in this campaign is called nobody."),
        ("/w player hi me", "That is you"),
        ("/r 1d20+@ghost.dex", "No character you can see is called ghost."),
        ("x" * 501, "at most 500 characters; this one has 501"),
    ],
)
def test_bad_input_is_refused_with_a_reason_and_writes_nothing(as_user, campaign, player, text, why):
    response = send(as_user, player, campaign, text)
    assert response.status_code in (400, 422)
    body = response.content.decode()
    assert 'id="chat-error"' in body and why in body
    assert not ChatMessage.objects.exists()


def test_a_refused_line_without_javascript_says_why(as_user, campaign, player):
    client = as_user(player)
    response = client.post(reverse("chat", args=[campaign.pk]), {"text": "/r 2d"}, follow=True)
    assert "cannot be rolled" in response.content.decode()
    assert not ChatMessage.objects.exists()


def test_a_burst_of_ten_rolls_goes_through_and_a_flood_stops(as_user, campaign, player, other_player):
    # The defaults: a player's burst of rolls (ten in a row, as fast as they are typed) is never refused...
    for i in range(10):
        response = send(as_user, player, campaign, f"/r 1d20+{i} Attack {i}")
        assert response.status_code == 200, response.content.decode()
    # ...a flood is: a little after the burst, within the same ten seconds, the lines are refused.
    statuses = [send(as_user, player, campaign, f"flood {i}").status_code for i in range(10)]
    assert statuses[:2] == [200, 200] and set(statuses[2:]) == {429}
    assert ChatMessage.objects.filter(author=player).count() == 12
    assert send(as_user, other_player, campaign, "my turn").status_code == 200  # the limit is the sender's
    # Ten seconds on, another burst; but a minute holds at most thirty lines.
    for burst in (9, 8):  # 12 + 9 + 8 lines
        ChatMessage.objects.update(created=timezone.now() - timedelta(seconds=11))
        assert all(send(as_user, player, campaign, f"/r 1d6 x{i}").status_code == 200 for i in range(burst))
    ChatMessage.objects.update(created=timezone.now() - timedelta(seconds=11))
    assert send(as_user, player, campaign, "thirtieth").status_code == 200
    response = send(as_user, player, campaign, "thirty-first")
    assert response.status_code == 429 and "at most 30 every 60 seconds" in response.content.decode()


def test_the_rate_limit_refuses_with_a_message_and_writes_nothing(as_user, campaign, player, settings):
    settings.CHAT_RATE_LINES, settings.CHAT_RATE_SECONDS = 3, 60
    for i in range(3):
        assert send(as_user, player, campaign, f"line {i}").status_code == 200
    response = send(as_user, player, campaign, "one too many")
    assert response.status_code == 429
    assert "You are sending messages too fast: at most 3 every 60 seconds" in response.content.decode()
    assert ChatMessage.objects.count() == 3 and not ChatMessage.objects.filter(text="one too many").exists()
    # The limit is the sender's: someone else still talks.
    ChatMessage.objects.update(created=timezone.now() - timedelta(seconds=61))
    assert send(as_user, player, campaign, "later").status_code == 200


def test_a_whisper_finds_a_player_by_character_display_name_or_start(
    as_user, campaign, gm, player, other_player, observer
):
    make_character(campaign, "Mira Vell", owner=player)
    make_character(campaign, "Miro", owner=other_player)
    make_character(campaign, "Midnight Hag", kind=CharacterKind.MONSTER)  # the GM's: no whisper finds it
    player.first_name, player.last_name = "Ana", "Lopes"
    player.save()
    for typed, words in [
        ("/w mira vell by character", "by character"),
        ("/w mira by first word", "by first word"),
        ("/w ana lopes by display name", "by display name"),
        ('/w "Mira V" quoted start', "quoted start"),
    ]:
        response = send(as_user, other_player, campaign, typed)
        assert response.status_code == 200, (typed, response.content.decode())
        message = ChatMessage.objects.get(text=words)
        assert (message.audience, message.recipient_id) == ("one", player.pk)
    html = page(as_user, player, campaign)
    assert "whispers to Mira Vell" in html and "whispers to Ana Lopes" in html
    assert "by display name" not in page(as_user, gm, campaign)
    # An ambiguous start is refused, naming who it could be; a monster's name reaches nobody.
    response = send(as_user, gm, campaign, "/w mi hello")
    assert response.status_code == 422
    assert "“mi” could be Mira Vell or Miro: write more of the name." in response.content.decode()
    response = send(as_user, player, campaign, "/w midnight hello")
    assert "Nobody in this campaign is called midnight." in response.content.decode()
    response = send(as_user, player, campaign, "/w Mira hi")
    assert "That is you" in response.content.decode()


def test_the_whisper_picker_offers_names_but_never_the_gms_monsters(as_user, campaign, player, other_player):
    make_character(campaign, "Miro", owner=other_player)
    make_character(campaign, "Midnight Hag", kind=CharacterKind.MONSTER)
    html = page(as_user, player, campaign)
    names = json.loads(
        re.search(r'<script id="chat-names-data" type="application/json">(.*?)</script>', html).group(1)
    )
    assert ["Miro", "other_player"] in names and names[0] == ["gm", "the GM"]
    assert not any("Midnight" in n for n, _ in names) and not any(n == "player" for n, _ in names)


def test_help_emotes_and_marked_dice(as_user, campaign, player, other_player):
    response = send(as_user, player, campaign, "/help")
    assert response.status_code == 200 and "Chat commands" in response.content.decode()
    assert "4d6k3" in response.content.decode() and not ChatMessage.objects.exists()
    html = send(as_user, player, campaign, "/em draws her sword").content.decode()
    assert 'class="chat-body chat-emote"><span class="chat-emote-who">player</span> draws her sword' in html
    html = page(as_user, other_player, campaign)
    assert "draws her sword" in html


def test_observers_and_strangers_cannot_write(as_user, campaign, observer, outsider):
    assert send(as_user, observer, campaign, "hi").status_code == 403
    assert send(as_user, outsider, campaign, "hi").status_code == 404
    assert "observers read the chat" in page(as_user, observer, campaign)
    assert not ChatMessage.objects.exists()


def test_whispers_and_gm_rolls_are_only_in_their_readers_pages(
    as_user, campaign, gm, player, other_player, observer
):
    send(as_user, player, campaign, "/w other_player meet me at the door")
    send(as_user, player, campaign, "/gr 1d20 sneaking")
    send(as_user, other_player, campaign, "/w gm I am the traitor")
    send(as_user, gm, campaign, "/w player the door is trapped")
    pages = {u.username: page(as_user, u, campaign) for u in (gm, player, other_player, observer)}
    assert "meet me at the door" in pages["player"] and "meet me at the door" in pages["other_player"]
    assert "sneaking" in pages["player"] and "sneaking" in pages["gm"]
    assert "I am the traitor" in pages["other_player"] and "I am the traitor" in pages["gm"]
    assert "the door is trapped" in pages["gm"] and "the door is trapped" in pages["player"]
    secret = {
        "meet me at the door": ("gm", "observer"),
        "sneaking": ("other_player", "observer"),
        "I am the traitor": ("player", "observer"),
        "the door is trapped": ("other_player", "observer"),
    }
    ids = {w: f'id="chat-m{m.pk}"' for m in ChatMessage.objects.all() for w in secret if w in m.text}
    for words, outsiders in secret.items():
        for name in outsiders:
            assert words not in pages[name] and ids[words] not in pages[name]


def test_history_pages_back_and_never_shows_what_the_reader_may_not_read(
    as_user, campaign, player, other_player
):
    lines = [
        ChatMessage(campaign=campaign, author=player, text=f"n{i}", parts=[{"text": f"n{i}"}])
        for i in range(45)
    ]
    lines.insert(
        10,
        ChatMessage(
            campaign=campaign, author=player, audience="gm", text="gm-only", parts=[{"text": "gm-only"}]
        ),
    )
    ChatMessage.objects.bulk_create(lines)
    html = page(as_user, other_player, campaign)
    assert "n44" in html and "n15" in html and "n14<" not in html
    oldest = re.search(r"before=(\d+)", html).group(1)
    older = as_user(other_player).get(
        reverse("chat", args=[campaign.pk]), {"before": oldest}, HTTP_HX_REQUEST="true"
    )
    text = older.content.decode()
    assert "n0" in text and "n14" in text and "n15" not in text and "gm-only" not in text
    assert "before=" not in text  # the first line: nothing older
    newest = ChatMessage.objects.order_by("-pk").first()
    caught_up = as_user(other_player).get(
        reverse("chat", args=[campaign.pk]), {"after": newest.pk - 3}, HTTP_HX_REQUEST="true"
    )
    assert re.findall(r">(n\d+)<", caught_up.content.decode()) == ["n42", "n43", "n44"]
    assert as_user(other_player).get(reverse("chat", args=[campaign.pk]), {"before": "x"}).status_code == 400


def test_the_author_edits_words_in_the_window_and_rolls_never(
    as_user, campaign, player, other_player, settings
):
    send(as_user, player, campaign, "helo")
    line = ChatMessage.objects.get()
    url = reverse("chat_edit", args=[campaign.pk, line.pk])
    assert 'value="helo"' not in as_user(player).get(url, HTTP_HX_REQUEST="true").content.decode()
    assert ">helo</textarea>" in as_user(player).get(url, HTTP_HX_REQUEST="true").content.decode()
    assert as_user(other_player).post(url, {"text": "hacked"}, HTTP_HX_REQUEST="true").status_code == 403
    response = as_user(player).post(url, {"text": "hello"}, HTTP_HX_REQUEST="true")
    assert (
        response.status_code == 200
        and "hello" in response.content.decode()
        and "edited" in response.content.decode()
    )
    assert as_user(player).post(url, {"text": "/r 1d20"}, HTTP_HX_REQUEST="true").status_code == 422
    send(as_user, player, campaign, "/r 1d20")
    roll = ChatMessage.objects.get(kind="roll")
    response = as_user(player).post(
        reverse("chat_edit", args=[campaign.pk, roll.pk]), {"text": "a 20!"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 422 and "rolls stay as rolled" in response.content.decode()
    ChatMessage.objects.filter(pk=line.pk).update(
        created=timezone.now() - timedelta(seconds=settings.CHAT_EDIT_SECONDS + 1)
    )
    assert as_user(player).post(url, {"text": "late"}, HTTP_HX_REQUEST="true").status_code == 422
    assert ChatMessage.objects.get(pk=line.pk).text == "hello"


def test_a_player_deletes_their_own_for_a_while_and_the_gm_any(
    as_user, campaign, gm, player, other_player, settings
):
    send(as_user, player, campaign, "oops")
    send(as_user, other_player, campaign, "rude words")
    oops, rude = ChatMessage.objects.order_by("pk")
    delete = lambda m: reverse("chat_delete", args=[campaign.pk, m.pk])  # noqa: E731
    assert as_user(player).post(delete(rude), HTTP_HX_REQUEST="true").status_code == 403
    assert "Message deleted." in as_user(player).post(delete(oops), HTTP_HX_REQUEST="true").content.decode()
    ChatMessage.objects.filter(pk=rude.pk).update(
        created=timezone.now() - timedelta(seconds=settings.CHAT_EDIT_SECONDS + 1)
    )
    assert as_user(other_player).post(delete(rude), HTTP_HX_REQUEST="true").status_code == 422
    assert as_user(gm).post(delete(rude), HTTP_HX_REQUEST="true").status_code == 200
    for m in ChatMessage.objects.all():
        assert m.deleted is not None and m.text == "" and m.parts == []
    html = page(as_user, other_player, campaign)
    assert "oops" not in html and "rude words" not in html and html.count("Message deleted.") == 2


def test_a_whisper_cannot_be_reached_by_id_by_someone_else(as_user, campaign, player, other_player, observer):
    send(as_user, player, campaign, "/w other_player secret plan")
    line = ChatMessage.objects.get()
    for url in (
        reverse("chat_line", args=[campaign.pk, line.pk]),
        reverse("chat_edit", args=[campaign.pk, line.pk]),
    ):
        response = as_user(observer).get(url, HTTP_HX_REQUEST="true")
        assert response.status_code == 404 and "secret plan" not in response.content.decode()
    response = as_user(observer).post(
        reverse("chat_delete", args=[campaign.pk, line.pk]), HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 404 and ChatMessage.objects.get().deleted is None


def test_the_history_query_and_the_push_agree_on_who_reads(campaign, gm, player, other_player, observer):
    people = {gm: "gm", player: "player", other_player: "player", observer: "observer"}
    lines = [
        ChatMessage.objects.create(
            campaign=campaign, author=author, audience=audience, recipient=to, text="x"
        )
        for author in (gm, player)
        for audience, to in (("all", None), ("gm", None), ("one", other_player), ("one", gm))
        if to != author
    ]
    for user, role in people.items():
        readable = set(chat.readable(campaign.pk, user.pk, role).values_list("pk", flat=True))
        for line in lines:
            assert (line.pk in readable) == chat.may_read(line, user.pk, role)
            event = chat.push_message(line, {str(gm.pk): "gm", str(player.pk): "player"})
            assert bool(chat.pick(event, str(user.pk), role)) == chat.may_read(line, user.pk, role)
