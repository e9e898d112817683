from django.apps import AppConfig


class VttConfig(AppConfig):
    name = "vtt"
    verbose_name = "Tabletop"

    def ready(self) -> None:
        from vtt.sockets import connect_signals

        connect_signals()
