from django.apps import AppConfig


class CombatConfig(AppConfig):
    name = "combat"
    verbose_name = "Combat"

    def ready(self) -> None:
        from combat.demo import battle_in_progress
        from combat.sockets import connect_signals
        from vtt.demo import campaign_seeded

        connect_signals()
        campaign_seeded.connect(battle_in_progress, dispatch_uid="combat-demo-battle")
