from django.urls import path

from vtt import views

urlpatterns = [
    path("", views.home, name="home"),
]
