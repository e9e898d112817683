from django.contrib import admin
from django.urls import include, path

from vtt import media

urlpatterns = [
    path("admin/", admin.site.urls),
    path("media/<path:name>", media.serve, name="media"),
    path("", include("vtt.web_urls")),
    path("", include("combat.urls")),
]
