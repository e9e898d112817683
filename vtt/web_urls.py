"""Page URLs. Names are stable: other apps and templates reverse them."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import path, register_converter

from vtt import chat_views, guest_views, homebrew_views, views


class IdConverter:
    """A database id: at most 18 digits, so a huge number is a 404, not an overflow in the database."""

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(IdConverter, "id")

urlpatterns = [
    path("", views.home, name="home"),
    path("accounts/login/", views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/keep/", guest_views.keep_account, name="keep_account"),
    path("campaigns/", views.campaign_list, name="campaigns"),
    path("campaigns/new/", views.campaign_create, name="campaign_create"),
    path("campaigns/<id:pk>/", views.campaign_detail, name="campaign"),
    path("campaigns/<id:pk>/edit/", views.campaign_edit, name="campaign_edit"),
    path("campaigns/<id:pk>/members/<id:member_pk>/role/", views.member_role, name="member_role"),
    path("campaigns/<id:pk>/members/<id:member_pk>/remove/", guest_views.member_remove, name="member_remove"),
    path("campaigns/<id:pk>/invites/new/", views.invite_create, name="invite_create"),
    path("campaigns/<id:pk>/invites/<id:invite_pk>/revoke/", views.invite_revoke, name="invite_revoke"),
    path("join/<str:token>/", guest_views.join, name="join"),
    path("campaigns/<id:pk>/maps/", views.map_library, name="map_library"),
    path("campaigns/<id:pk>/maps/<id:map_pk>/delete/", views.map_delete, name="map_delete"),
    path("campaigns/<id:pk>/characters/new/", views.character_create, name="character_create"),
    path("campaigns/<id:pk>/characters/<id:char_pk>/", views.character_detail, name="character"),
    path("campaigns/<id:pk>/characters/<id:char_pk>/edit/", views.character_edit, name="character_edit"),
    path(
        "campaigns/<id:pk>/characters/<id:char_pk>/delete/", views.character_delete, name="character_delete"
    ),
    path("campaigns/<id:pk>/chat/", chat_views.chat_lines, name="chat"),
    path("campaigns/<id:pk>/chat/<id:message_pk>/", chat_views.chat_line, name="chat_line"),
    path("campaigns/<id:pk>/chat/<id:message_pk>/edit/", chat_views.chat_edit, name="chat_edit"),
    path("campaigns/<id:pk>/chat/<id:message_pk>/delete/", chat_views.chat_delete, name="chat_delete"),
    path("campaigns/<id:pk>/content/", homebrew_views.content_list, name="content"),
    path("campaigns/<id:pk>/content/export/", homebrew_views.content_export, name="content_export"),
    path("campaigns/<id:pk>/content/import/", homebrew_views.content_import, name="content_import"),
    path("campaigns/<id:pk>/content/<slug:kind>/new/", homebrew_views.content_create, name="content_create"),
    path(
        "campaigns/<id:pk>/content/<slug:kind>/<slug:key>/", homebrew_views.content_edit, name="content_edit"
    ),
    path(
        "campaigns/<id:pk>/content/<slug:kind>/<slug:key>/delete/",
        homebrew_views.content_delete,
        name="content_delete",
    ),
    path(
        "campaigns/<id:pk>/content/<slug:kind>/<slug:key>/character/",
        homebrew_views.content_character,
        name="content_character",
    ),
]
