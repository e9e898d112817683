"""Uploaded images, served only to members of the campaign they belong to.

Stored names look like ``campaigns/<campaign id>/<portraits|maps>/<32 hex>-<variant>.webp``
(``vtt.images``). A request for any other shape of name, for a campaign the
viewer is not a member of, for a file no character or library map of that
campaign names (a deleted one's), or for a file that is not stored, is the
same 404: nobody learns which campaigns or files exist. The bytes come through Django's
storage API, so the local file system and an S3-compatible bucket behave alike.
"""

from __future__ import annotations

import re

from django.core.files.storage import default_storage
from django.db.models import Q
from django.http import FileResponse, Http404, HttpRequest
from django.views.decorators.http import require_GET

from vtt.access import campaign_for
from vtt.models import Character, MapImage

NAME = re.compile(
    r"^campaigns/(?P<campaign>[0-9]{1,18})/(?P<kind>portraits|maps)/[0-9a-f]{32}-(?:sheet|token|map|thumb)\.webp$"
)
# Names are random and never reused: a browser may keep a file for a year, but only for this user.
CACHE = "private, max-age=31536000, immutable"


@require_GET
def serve(request: HttpRequest, name: str) -> FileResponse:
    match = NAME.match(name)
    if match is None:
        raise Http404("No such image.")
    campaign, _ = campaign_for(request, int(match["campaign"]))  # 404 unless a member (anonymous included)
    model = Character if match["kind"] == "portraits" else MapImage
    named = Q()
    for field in model.FILE_FIELDS:
        named |= Q(**{field: name})
    if not model.objects.filter(named, campaign=campaign).exists():
        raise Http404("No such image.")  # deleted with its character or map (or never stored)
    try:
        handle = default_storage.open(name, "rb")
    except (FileNotFoundError, OSError) as exc:
        raise Http404("No such image.") from exc
    response = FileResponse(handle, content_type="image/webp")
    response["Cache-Control"] = CACHE
    response["X-Content-Type-Options"] = "nosniff"
    response["Content-Disposition"] = "inline"
    # An image needs nothing else: even opened on its own it may run nothing.
    response["Content-Security-Policy"] = "default-src 'none'; img-src 'self'; sandbox"
    return response
