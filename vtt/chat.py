"""A campaign's chat: the only writer of chat lines, and the one place that decides who reads them.

``post``, ``edit`` and ``delete`` are each one transaction: lock the sender's membership (one
sender's lines go one at a time, so the rate limit holds under a double tap), check the role and
the limits, and write. A refusal writes nothing and says why (``Sent.reason``). After the commit
the line is pushed to the campaign's group (``campaign-<id>``): the campaign page's sockets and,
through their process's one subscription (``combat.fanout``), every open battle page of the
campaign.

Who reads a line is decided here and nowhere else (``readers``): everyone; the GMs and the line's
author (``/gr`` rolls, ``/w gm``); or one member and the author (``/w name``). The history query
(``readable``) and the push (``push_message``, whose parts each socket picks with ``pick``) both
follow it, and tests hold every other member's pages and frames free of those lines' bytes.

A line is rendered once per change (a Jinja2 piece, like the battle's small pieces); only its
buttons differ by reader: its author's (edit and delete within ``CHAT_EDIT_SECONDS``), a GM's
(delete), none for anyone else.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Q, QuerySet
from django.template import engines
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe

from combat.engine.dice import Dice
from vtt import sockets
from vtt.access import can_see_sheet
from vtt.chat_commands import HELP, MAX_LENGTH, ChatError, Person, SheetRef, clean, compose, sheet_numbers
from vtt.models import Campaign, Character, CharacterKind, ChatMessage, Membership, Role
from vtt.names import display_name
from vtt.sockets import campaign_group

log = logging.getLogger(__name__)

PAGE = 30  # lines per page of history
TEMPLATE = "vtt/chat.html"
Audience = ChatMessage.Audience


@dataclass
class Sent:
    """What a chat service did: ``ok``, or ``reason`` (for the sender) and ``status`` (HTTP); the
    ``message`` written and the sender's ``role`` (read with the lock); ``help``: show the commands."""

    ok: bool
    reason: str = ""
    status: int = 200
    message: ChatMessage | None = None
    role: str = ""
    help: bool = False  # /help: nothing written, the commands shown to the sender


def _no(reason: str, status: int = 422) -> Sent:
    return Sent(False, reason, status)


# ---------------------------------------------------------------- who reads what


@dataclass(frozen=True)
class Readers:
    """Who may read a line: ``everyone`` in the campaign, its ``gms``, and these ``users`` (ids)."""

    everyone: bool
    gms: bool
    users: frozenset[str]


def readers(message: ChatMessage) -> Readers:
    """The one rule of who reads a line: everyone, the GMs and its author, or one member and its author."""
    author = str(message.author_id)
    if message.audience == Audience.ALL:
        return Readers(True, True, frozenset({author}))
    if message.audience == Audience.GM:
        return Readers(False, True, frozenset({author}))
    return Readers(False, False, frozenset({author, str(message.recipient_id)}))


def may_read(message: ChatMessage, user_id: Any, role: str) -> bool:
    who = readers(message)
    return who.everyone or (who.gms and role == Role.GM) or str(user_id) in who.users


def readable(campaign_id: int, user_id: Any, role: str) -> QuerySet[ChatMessage]:
    """The campaign's lines a member may read (``readers`` as a query)."""
    mine = Q(audience=Audience.ALL) | Q(author_id=user_id) | Q(audience=Audience.ONE, recipient_id=user_id)
    if role == Role.GM:
        mine |= Q(audience=Audience.GM)
    return ChatMessage.objects.filter(mine, campaign_id=campaign_id)


# ---------------------------------------------------------------- writing


def _membership(campaign_id: Any, user: Any) -> Membership | None:
    """The sender's membership, locked until the transaction ends."""
    if not getattr(user, "is_authenticated", False):
        return None
    return (
        Membership.objects.select_for_update(of=("self",))
        .select_related("campaign")
        .filter(campaign_id=campaign_id, user_id=user.pk)
        .first()
    )


def _too_fast(user: Any) -> str:
    """Why this member may not send now (anywhere): CHAT_BURST_LINES lines in CHAT_BURST_SECONDS already,
    a burst of rolls' worth; or CHAT_RATE_LINES in CHAT_RATE_SECONDS, a flood. One query counts both."""
    now = timezone.now()
    windows = sorted(
        [
            (settings.CHAT_BURST_SECONDS, settings.CHAT_BURST_LINES),
            (settings.CHAT_RATE_SECONDS, settings.CHAT_RATE_LINES),
        ]
    )
    since = [now - timedelta(seconds=seconds) for seconds, _ in windows]
    counts = ChatMessage.objects.filter(author_id=user.pk, created__gte=min(since)).aggregate(
        **{f"w{i}": Count("id", filter=Q(created__gte=at)) for i, at in enumerate(since)}
    )
    for i, (seconds, lines) in enumerate(windows):
        if counts[f"w{i}"] >= lines:
            return f"You are sending messages too fast: at most {lines} every {seconds:g} seconds. Wait a moment."
    return ""


def sheets_for(campaign: Campaign, user: Any, membership: Membership) -> list[SheetRef]:
    """The characters whose numbers the sender may roll (those whose sheet they may read)."""
    schema = campaign.ruleset_class.sheet_schema
    out = []
    for character in Character.objects.filter(campaign=campaign).only("name", "kind", "owner_id", "sheet"):
        character.campaign = campaign
        if can_see_sheet(user, membership, character):
            numbers = sheet_numbers(schema, character.sheet or {})
            out.append(SheetRef(character.name, character.owner_id == user.pk, numbers))
    return out


def people_for(campaign_id: int) -> list[Person]:
    """Whom a whisper may reach: every member, by their player characters' names, display name and user
    name (names every member may know: PCs are no secret, the GM's NPCs never count)."""
    members = list(Membership.objects.filter(campaign_id=campaign_id).select_related("user"))
    pcs: dict[Any, list[str]] = {}
    for owner, name in Character.objects.filter(
        campaign_id=campaign_id, owner__isnull=False, kind=CharacterKind.PC
    ).values_list("owner_id", "name"):
        pcs.setdefault(owner, []).append(name)
    out = []
    for m in members:
        names = [*pcs.get(m.user_id, []), m.user.get_full_name(), m.user.first_name, m.user.get_username()]
        out.append(Person(m.user_id, display_name(m.user), tuple(dict.fromkeys(n for n in names if n))))
    return out


def whisper_names(campaign_id: int, user: Any) -> list[tuple[str, str]]:
    """What the chat's picker offers after ``/w``: (a name, who it reaches) for each other member's
    characters, display name and user name, the GMs first."""
    out = [("gm", "the GM")]
    for person in people_for(campaign_id):
        if person.user_id != user.pk:
            out.extend((name, person.label) for name in person.names)
    return out


def post(campaign_id: Any, user: Any, text: Any) -> Sent:
    """Send one typed line (``vtt.chat_commands``) to the campaign's chat."""
    try:
        clean(text)
    except ChatError as exc:
        return _no(str(exc))
    with transaction.atomic():
        membership = _membership(campaign_id, user)
        if membership is None:
            return _no("You are not part of this campaign.", 404)
        if membership.role == Role.OBSERVER:
            return _no("Observers read the chat; they cannot write in it.", 403)
        too_fast = _too_fast(user)
        if too_fast:
            return _no(too_fast, 429)
        campaign = membership.campaign
        sheets = sheets_for(campaign, user, membership) if "@" in text else []
        people = people_for(campaign.pk) if text.lstrip().lower().startswith("/w") else []
        try:
            line = compose(text, sheets, Dice(secrets.randbits(48)), people)
        except ChatError as exc:
            return _no(str(exc))
        if line.kind == "help":
            return Sent(True, help=True, role=membership.role)
        recipient, roles = None, {str(user.pk): membership.role}
        if line.to is not None:
            if line.to.user_id == user.pk:
                return _no("That is you: whisper to someone else.")
            found = Membership.objects.select_related("user").get(campaign=campaign, user_id=line.to.user_id)
            recipient, roles[str(found.user_id)] = found.user, found.role
        message = ChatMessage.objects.create(
            campaign=campaign,
            author=user,
            kind=line.kind,
            audience=line.audience,
            recipient=recipient,
            text=line.text,
            parts=line.parts,
        )
        transaction.on_commit(lambda: publish(message, roles))
    return Sent(True, message=message, role=membership.role)


def _locked(campaign_id: Any, message_id: Any, user: Any) -> tuple[Membership, ChatMessage] | Sent:
    membership = _membership(campaign_id, user)
    if membership is None:
        return _no("You are not part of this campaign.", 404)
    message = (
        ChatMessage.objects.select_for_update(of=("self",))
        .filter(pk=message_id, campaign_id=campaign_id)
        .select_related("author", "recipient")
        .first()
        if str(message_id).isdigit() and len(str(message_id)) < 19
        else None
    )
    if message is None or not may_read(message, user.pk, membership.role):
        return _no("That message does not exist.", 404)
    return membership, message


def editable_until(message: ChatMessage) -> Any:
    return message.created + timedelta(seconds=settings.CHAT_EDIT_SECONDS)


def _editable(message: ChatMessage) -> bool:
    """An author may still change this line: recent, not deleted, words only (a roll stays as rolled)."""
    return (
        message.deleted is None
        and message.kind == ChatMessage.Kind.SAY
        and all("roll" not in p for p in message.parts)
        and timezone.now() < editable_until(message)
    )


def edit(campaign_id: Any, message_id: Any, user: Any, text: Any) -> Sent:
    """The author changes the words of a recent line (never its rolls, never after the edit window)."""
    try:
        words = clean(text)
    except ChatError as exc:
        return _no(str(exc))
    with transaction.atomic():
        found = _locked(campaign_id, message_id, user)
        if isinstance(found, Sent):
            return found
        _, message = found
        if message.author_id != user.pk:
            return _no("Only its author can change a message.", 403)
        if not _editable(message):
            return _no(
                "This message can no longer be changed: rolls stay as rolled, and words only for "
                f"{settings.CHAT_EDIT_SECONDS // 60} minutes."
            )
        if words.startswith("/") or "[[" in words:
            return _no("An edit changes words only: send a new message to roll or whisper.")
        kept = [p for p in message.parts if "text" not in p and "roll" not in p]  # an emote, a whisper's name
        message.text, message.parts, message.edited = words, [*kept, {"text": words}], timezone.now()
        message.save(update_fields=["text", "parts", "edited"])
        transaction.on_commit(lambda: publish(message))
    return Sent(True, message=message)


def delete(campaign_id: Any, message_id: Any, user: Any) -> Sent:
    """Take a line back: its author within the edit window, a GM any time. Its readers see that it was."""
    with transaction.atomic():
        found = _locked(campaign_id, message_id, user)
        if isinstance(found, Sent):
            return found
        membership, message = found
        if message.deleted is not None:
            return Sent(True, message=message)
        gm = membership.role == Role.GM
        if not gm and message.author_id != user.pk:
            return _no("Only its author or a GM can delete a message.", 403)
        if not gm and timezone.now() >= editable_until(message):
            return _no(f"Your messages can be deleted for {settings.CHAT_EDIT_SECONDS // 60} minutes only.")
        message.text, message.parts, message.deleted = "", [], timezone.now()
        message.save(update_fields=["text", "parts", "deleted"])
        transaction.on_commit(lambda: publish(message))
    return Sent(True, message=message)


# ---------------------------------------------------------------- reading and rendering


def history(
    campaign_id: int, user_id: Any, role: str, before: int | None = None, after: int | None = None
) -> tuple[list[ChatMessage], bool]:
    """A page of the lines this member may read, oldest first: the newest ones, those before the
    line ``before``, or the first ones after the line ``after`` (a page that reconnects catches up);
    and whether more lie beyond the page."""
    rows = readable(campaign_id, user_id, role).select_related("author", "recipient")
    if after is not None:
        page = list(rows.filter(id__gt=after).order_by("id")[: PAGE + 1])
        return page[:PAGE], len(page) > PAGE
    if before is not None:
        rows = rows.filter(id__lt=before)
    page = list(rows.order_by("-id")[: PAGE + 1])
    return page[:PAGE][::-1], len(page) > PAGE


LINE, TOOLS = "vtt/chat_line.html", "vtt/chat_tools.html"  # Jinja2 (combat.jinja's environment)
TOOLS_SLOT = "<!--tools-->"


def _jinja(name: str, ctx: dict[str, Any]) -> str:
    html: str = engines["jinja2"].env.get_template(name).render(ctx)  # type: ignore[attr-defined]
    return html


def _line(message: ChatMessage) -> str:
    """A line as every reader sees it, with the slot of each reader's buttons: rendered once a change."""
    recipient = display_name(message.recipient) if message.recipient_id and message.recipient else ""
    view = {
        "id": message.pk,
        "author": display_name(message.author),
        "kind": message.kind,
        "audience": message.audience,
        "to": recipient,
        "parts": message.parts,
        "created": message.created,
        "edited": message.edited is not None,
        "deleted": message.deleted is not None,
    }
    return _jinja(LINE, {"m": view, "slot": mark_safe(TOOLS_SLOT)})  # noqa: S308 - a constant comment


def _tools(message: ChatMessage, author: bool, gm: bool, urls: dict[str, str]) -> str:
    """A reader's buttons on a line: its ``author`` edits and deletes within the edit window (chat.js
    hides them when it ends), a ``gm`` deletes any line."""
    until = editable_until(message)
    can_delete = message.deleted is None and (gm or (author and timezone.now() < until))
    tools = {
        "can_edit": author and _editable(message),
        "can_delete": can_delete,
        "until": int(until.timestamp() * 1000),
        "delete_until": int(until.timestamp() * 1000) if not gm else 0,
        "urls": urls,
    }
    return _jinja(TOOLS, {"t": tools}) if tools["can_edit"] or can_delete else ""


def message_urls(campaign_id: int, message_id: int) -> dict[str, str]:
    return {
        "edit": reverse("chat_edit", args=[campaign_id, message_id]),
        "delete": reverse("chat_delete", args=[campaign_id, message_id]),
        "line": reverse("chat_line", args=[campaign_id, message_id]),
    }


def line_view(message: ChatMessage) -> dict[str, Any]:
    """What the edit box of a line shows (its words, their limit, where to send them)."""
    return {
        "id": message.pk,
        "text": message.text,
        "limit": MAX_LENGTH,
        "urls": message_urls(message.campaign_id, message.pk),
    }


def render_lines(messages: list[ChatMessage], user_id: Any, role: str) -> SafeString:
    """The lines (``<li>``) as this member sees them."""
    out = []
    for m in messages:
        tools = _tools(
            m, str(m.author_id) == str(user_id), role == Role.GM, message_urls(m.campaign_id, m.pk)
        )
        out.append(_line(m).replace(TOOLS_SLOT, tools, 1))
    return mark_safe("".join(out))  # noqa: S308 - our templates' output


def panel_context(campaign: Campaign, user: Any, role: str) -> dict[str, Any]:
    """The chat panel of a page (the campaign page, a battle page): the newest page of history."""
    lines, more = history(campaign.pk, user.pk, role)
    can_write = role in (Role.GM, Role.PLAYER)
    return {
        "chat_lines": render_lines(lines, user.pk, role),
        "chat_more": more,
        "chat_oldest": lines[0].pk if lines else 0,
        "chat_can_write": can_write,
        "chat_url": reverse("chat", args=[campaign.pk]),
        "chat_limit": MAX_LENGTH,
        "chat_help": HELP,
        "chat_names": whisper_names(campaign.pk, user) if can_write else [],
    }


# ---------------------------------------------------------------- pushing


PUSH = "chat.push"


def appended(lines: str) -> str:
    """Rendered lines, to be added at the end of a page's chat log (an out-of-band swap)."""
    return '<ol id="chat-log" hx-swap-oob="beforeend">' + lines + "</ol>"


def push_message(message: ChatMessage, roles: dict[str, str]) -> dict[str, Any]:
    """The group message of one change to a line: each reader's bytes, the line rendered once.

    ``roles``: user id -> role of the line's author and recipient. ``users``: the author's copy and
    a whispered member's; ``gm``: what a GM reads (absent when the GMs may not read it);
    ``everyone``: what any other member reads (absent unless everyone may). A new line is appended
    to the log; a changed one takes the place of the one shown (by id).
    """
    who = readers(message)
    author = str(message.author_id)
    line, urls = _line(message), message_urls(message.campaign_id, message.pk)
    new = message.edited is None and message.deleted is None

    def frame(is_author: bool, gm: bool) -> str:
        html = line.replace(TOOLS_SLOT, _tools(message, is_author, gm, urls), 1)
        return appended(html) if new else html.replace("<li ", '<li hx-swap-oob="true" ', 1)

    users = {uid: frame(uid == author, roles.get(uid) == Role.GM) for uid in sorted(who.users)}
    out: dict[str, Any] = {"type": PUSH, "campaign": message.campaign_id, "users": users}
    if who.gms:
        out["gm"] = frame(False, True)
    if who.everyone:
        out["everyone"] = frame(False, False)
    return out


def pick(event: dict[str, Any], user_id: str, role: str) -> str:
    """A socket's bytes of a chat push (``readers``' decision, made when the push was built)."""
    own = event["users"].get(user_id)
    if own is not None:
        return str(own)
    if role == Role.GM and "gm" in event:
        return str(event["gm"])
    return str(event.get("everyone", ""))


def publish(message: ChatMessage, roles: dict[str, str] | None = None) -> None:
    """Push a change of a line to the campaign's open pages (after the commit; never fails the request).

    ``roles``: user id -> role of the line's author and recipient, when the caller knows them."""
    try:
        if roles is None:
            roles = {
                str(uid): role
                for uid, role in Membership.objects.filter(
                    campaign_id=message.campaign_id, user_id__in=[message.author_id, message.recipient_id]
                ).values_list("user_id", "role")
            }
        sockets.publish(campaign_group(message.campaign_id), push_message(message, roles))
    except Exception:
        log.exception("chat push for campaign %s failed", message.campaign_id)
