"""Page URLs. Names are stable: other apps and templates reverse them."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import path

from vtt import views

urlpatterns = [
    path("", views.home, name="home"),
    path("accounts/login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/signup/", views.signup, name="signup"),
    path("campaigns/", views.campaign_list, name="campaigns"),
    path("campaigns/new/", views.campaign_create, name="campaign_create"),
    path("campaigns/<int:pk>/", views.campaign_detail, name="campaign"),
    path("campaigns/<int:pk>/edit/", views.campaign_edit, name="campaign_edit"),
    path("campaigns/<int:pk>/members/<int:member_pk>/role/", views.member_role, name="member_role"),
    path("campaigns/<int:pk>/invites/new/", views.invite_create, name="invite_create"),
    path("campaigns/<int:pk>/invites/<int:invite_pk>/revoke/", views.invite_revoke, name="invite_revoke"),
    path("join/<str:token>/", views.join, name="join"),
    path("campaigns/<int:pk>/characters/new/", views.character_create, name="character_create"),
    path("campaigns/<int:pk>/characters/<int:char_pk>/", views.character_detail, name="character"),
    path("campaigns/<int:pk>/characters/<int:char_pk>/edit/", views.character_edit, name="character_edit"),
    path("campaigns/<int:pk>/characters/<int:char_pk>/delete/", views.character_delete, name="character_delete"),
]
