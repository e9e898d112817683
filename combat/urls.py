"""Battle URLs (included from vtt.urls)."""

from __future__ import annotations

from django.urls import path

from combat import archive_views, odds_views, plan_views, trial_views, views

urlpatterns = [
    path("try/", trial_views.trial_start, name="trial_start"),
    path("campaigns/<int:pk>/battles/new/", views.battle_new, name="battle_new"),
    path("battles/<int:pk>/", views.battle_page, name="battle"),
    path("battles/<int:pk>/act", views.battle_act, name="battle_act"),
    path("battles/<int:pk>/start", views.battle_start, name="battle_start"),
    path("battles/<int:pk>/undo", views.battle_undo, name="battle_undo"),
    path("battles/<int:pk>/add", views.battle_add, name="battle_add"),
    path("battles/<int:pk>/log", views.battle_log, name="battle_log"),
    path("battles/<int:pk>/menu/<str:cid>", views.battle_menu, name="battle_menu"),
    path("battles/<int:pk>/plans", plan_views.battle_plans, name="battle_plans"),
    path("battles/<int:pk>/map", views.battle_map, name="battle_map"),
    path("battles/<int:pk>/odds", odds_views.battle_odds, name="battle_odds"),
    path("battles/<int:pk>/odds/cancel", odds_views.battle_odds_cancel, name="battle_odds_cancel"),
    path("battles/<int:pk>/replay", archive_views.battle_replay, name="battle_replay"),
    path("battles/<int:pk>/export", archive_views.battle_export, name="battle_export"),
    path("battles/<int:pk>/summary", archive_views.battle_summary, name="battle_summary"),
    path("campaigns/<int:pk>/battles/import/", archive_views.battle_import, name="battle_import"),
]
