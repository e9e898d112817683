"""What other apps add to each campaign of the demo (``manage.py seed_demo``), without vtt knowing them.

``campaign_seeded`` is sent once per demo campaign, after its members and characters exist, with
``campaign`` and ``users`` (the demo's accounts by username: ``gm``, ``alice``, ``bob``). A receiver
adds what it owns (the combat app: a battle in progress) and returns True when it made anything, so
that a second run, which must change nothing, can say so.
"""

from __future__ import annotations

from django.dispatch import Signal

campaign_seeded = Signal()
