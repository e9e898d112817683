"""The chat's HTTP endpoints: send, page back through history, change or delete a line.

Every view starts with ``campaign_for`` (a campaign the user is not in is a 404) and calls
``vtt.chat``, the only writer. An HTMX request gets the pieces to swap: the sender's own copy of a
new line (the socket brings it too; chat.js keeps one of the two) and the form's message slot,
emptied, or filled with the reason of a refusal (the typed text stays in the box). Without
JavaScript a form posts and comes back to the page it was sent from.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from vtt import chat
from vtt.access import campaign_for
from vtt.chat_commands import HELP
from vtt.requests import HtmxRequest

TEMPLATE = chat.TEMPLATE


def _back(request: HtmxRequest, campaign_id: int) -> HttpResponse:
    target = request.POST.get("next", "")
    if target and url_has_allowed_host_and_scheme(target, {request.get_host()}, request.is_secure()):
        return redirect(target)
    return redirect("campaign", campaign_id)


def _line_id(raw: str | None) -> int | None:
    return int(raw) if raw and raw.isascii() and raw.isdigit() and len(raw) < 19 else None


def _error(text: str = "") -> str:
    return render_to_string(f"{TEMPLATE}#error", {"error": text})


def _problem(text: str, status: int) -> HttpResponse:
    """A reason for the chat form's message slot, and nothing else swapped: the box keeps its text."""
    response = HttpResponse(_error(text), status=status)
    response["HX-Reswap"] = "none"
    return response


def _refused(request: HtmxRequest, campaign_id: int, sent: chat.Sent) -> HttpResponse:
    if not request.htmx:
        messages.error(request, sent.reason)
        return _back(request, campaign_id)
    return _problem(sent.reason, sent.status)


def _changed(request: HtmxRequest, campaign_id: int, role: str, sent: chat.Sent) -> HttpResponse:
    """A changed line as its changer now sees it (HTMX), the page again (no script), or the refusal."""
    if not sent.ok or sent.message is None:
        return _refused(request, campaign_id, sent)
    if not request.htmx:
        return _back(request, campaign_id)
    return HttpResponse(chat.render_lines([sent.message], request.user.pk, role))


@login_required
@require_http_methods(["GET", "POST"])
def chat_lines(request: HtmxRequest, pk: int) -> HttpResponse:
    """GET ``?before=<id>``: an older page of lines (the history loads it as it scrolls). POST: send
    (the service's locking read of the sender's membership is the access check: not a member, 404)."""
    if request.method == "POST":
        return _send(request, pk)
    campaign, membership = campaign_for(request, pk)
    before, after = _line_id(request.GET.get("before")), _line_id(request.GET.get("after"))
    if (before is None) == (after is None):
        return _problem("Which messages? The request is malformed.", 400)
    lines, more = chat.history(campaign.pk, request.user.pk, membership.role, before, after)
    ctx = {
        "campaign": campaign,
        "chat_lines": chat.render_lines(lines, request.user.pk, membership.role),
        "chat_more": more and before is not None,
        "chat_oldest": lines[0].pk if lines else 0,
        "chat_url": request.path,
    }
    if not request.htmx:
        return render(request, "vtt/chat_history.html", ctx)
    return render(request, f"{TEMPLATE}#older", ctx)


def _send(request: HtmxRequest, campaign_id: int) -> HttpResponse:
    sent = chat.post(campaign_id, request.user, request.POST.get("text"))
    if sent.status == 404:
        raise Http404("No such campaign.")  # as campaign_for answers a stranger
    if sent.help:  # the commands, in the form's message slot: for the sender, nothing written
        if not request.htmx:
            messages.info(request, " · ".join(f"{typed}: {meaning}" for typed, meaning in HELP))
            return _back(request, campaign_id)
        return HttpResponse(render_to_string(f"{TEMPLATE}#help", {"chat_help": HELP}))
    if not sent.ok or sent.message is None:
        return _refused(request, campaign_id, sent)
    if not request.htmx:
        return _back(request, campaign_id)
    line = chat.render_lines([sent.message], request.user.pk, sent.role)
    return HttpResponse(_error() + chat.appended(line))


@login_required
@require_http_methods(["GET", "POST"])
def chat_edit(request: HtmxRequest, pk: int, message_pk: int) -> HttpResponse:
    """GET: the line with its words in a box (the author's, while it may change). POST: change them."""
    campaign, membership = campaign_for(request, pk)
    if request.method == "GET":
        found = chat.readable(campaign.pk, request.user.pk, membership.role).filter(pk=message_pk).first()
        if found is None or found.author_id != request.user.pk:
            return _problem("That message cannot be changed.", 404)
        return render(request, f"{TEMPLATE}#edit", {"m": chat.line_view(found)})
    sent = chat.edit(campaign.pk, message_pk, request.user, request.POST.get("text"))
    return _changed(request, campaign.pk, membership.role, sent)


@login_required
@require_POST
def chat_delete(request: HtmxRequest, pk: int, message_pk: int) -> HttpResponse:
    campaign, membership = campaign_for(request, pk)
    return _changed(request, campaign.pk, membership.role, chat.delete(campaign.pk, message_pk, request.user))


@login_required
@require_GET
def chat_line(request: HtmxRequest, pk: int, message_pk: int) -> HttpResponse:
    """One line as this member sees it (an edit given up puts it back)."""
    campaign, membership = campaign_for(request, pk)
    found = chat.readable(campaign.pk, request.user.pk, membership.role).filter(pk=message_pk).first()
    if found is None:
        return _problem("That message does not exist.", 404)
    return HttpResponse(chat.render_lines([found], request.user.pk, membership.role))
