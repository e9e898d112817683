"""Battle URLs (included from vtt.urls)."""

from __future__ import annotations

from django.urls import path

from combat import views

urlpatterns = [
    path("campaigns/<int:pk>/battles/new/", views.battle_new, name="battle_new"),
    path("battles/<int:pk>/", views.battle_page, name="battle"),
    path("battles/<int:pk>/act", views.battle_act, name="battle_act"),
    path("battles/<int:pk>/start", views.battle_start, name="battle_start"),
    path("battles/<int:pk>/undo", views.battle_undo, name="battle_undo"),
    path("battles/<int:pk>/add", views.battle_add, name="battle_add"),
    path("battles/<int:pk>/log", views.battle_log, name="battle_log"),
]
