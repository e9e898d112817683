from django.apps import AppConfig


class CombatConfig(AppConfig):
    name = "combat"
    verbose_name = "Combat"

    def ready(self) -> None:
        from combat.sockets import connect_signals

        connect_signals()
