from django.apps import AppConfig


class VttConfig(AppConfig):
    name = "vtt"
    verbose_name = "Tabletop"
