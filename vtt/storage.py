"""Where uploads are stored: the local file system, or an S3-compatible bucket from one URL.

``MEDIA_STORAGE_URL=s3://KEY:SECRET@host:port/bucket/prefix?region=eu-west-1`` (``s3+http://`` for a
store without TLS, e.g. a local MinIO) selects django-storages' S3 backend; unset, files go to
``MEDIA_ROOT``. Either way pages link to ``/media/...`` and ``vtt.media`` checks who asks before
reading the bytes through the storage API, so the bucket itself stays private.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured


def storage_from_url(url: str) -> dict[str, Any]:
    """The ``STORAGES["default"]`` entry for ``MEDIA_STORAGE_URL``."""
    parts = urlsplit(url)
    if parts.scheme not in ("s3", "s3+http", "s3+https"):
        raise ImproperlyConfigured("MEDIA_STORAGE_URL must start with s3:// (or s3+http:// without TLS).")
    path = [p for p in parts.path.split("/") if p]
    if not path:
        raise ImproperlyConfigured("MEDIA_STORAGE_URL needs a bucket: s3://key:secret@host/bucket")
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    options: dict[str, Any] = {
        "bucket_name": path[0],
        "location": "/".join(path[1:]),
        "default_acl": None,  # private objects: only this site reads them
        "querystring_auth": True,
        "file_overwrite": False,
    }
    if parts.username:
        options["access_key"] = unquote(parts.username)
        options["secret_key"] = unquote(parts.password or "")
    if parts.hostname:
        scheme = "http" if parts.scheme == "s3+http" else "https"
        port = f":{parts.port}" if parts.port else ""
        options["endpoint_url"] = f"{scheme}://{parts.hostname}{port}"
    if "region" in query:
        options["region_name"] = query["region"]
    return {"BACKEND": "storages.backends.s3.S3Storage", "OPTIONS": options}
