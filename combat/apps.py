from __future__ import annotations

from typing import Any

from django.apps import AppConfig


def _battle_routes() -> tuple[list[Any], dict[str, Any]]:
    """The battle sockets' routes and the odds jobs' channel (``vtt.routing`` asks once Django is set up)."""
    from combat.routing import channel_routes, websocket_urlpatterns

    return websocket_urlpatterns, channel_routes


def _portraits_changed(sender: Any, instance: Any, **kwargs: Any) -> None:
    """A character was saved or deleted: the board shows its new portrait at once (this process)."""
    from combat.table import forget_faces

    forget_faces(instance.campaign_id)


class CombatConfig(AppConfig):
    name = "combat"
    verbose_name = "Combat"

    def ready(self) -> None:
        """What the campaign app learns of battles, registered here: it never imports this app."""
        from django.db.models.signals import post_delete, post_save

        from combat import live
        from combat.access import campaign_snapshots
        from combat.command_base import battle_written
        from combat.demo import battle_in_progress
        from vtt import battles, routing
        from vtt.demo import campaign_seeded
        from vtt.models import Character

        battle_written.connect(live.on_battle_written, dispatch_uid=live.PUSH_RECEIVER)  # the push
        battles.register(campaign_snapshots)
        routing.register(_battle_routes)
        post_save.connect(_portraits_changed, sender=Character, dispatch_uid="combat-faces-saved")
        post_delete.connect(_portraits_changed, sender=Character, dispatch_uid="combat-faces-deleted")
        campaign_seeded.connect(battle_in_progress, dispatch_uid="combat-demo-battle")
