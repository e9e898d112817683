"""Uploaded portraits and maps: checked by content, re-encoded, stored through the storage API and
served only to members of their campaign."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from PIL import Image

from combat import services
from combat.models import Battle
from tests.table import make_campaign, make_character, make_user
from tests.web.conftest import sheet_post
from vtt import images
from vtt.models import Character, MapImage
from vtt.storage import storage_from_url


def png_bytes(size=(64, 48), color=(200, 30, 30), mode="RGB") -> bytes:
    out = io.BytesIO()
    Image.new(mode, size, color).save(out, "PNG")
    return out.getvalue()


def jpeg_with_exif() -> bytes:
    image = Image.new("RGB", (300, 200), (10, 120, 200))
    exif = Image.Exif()
    exif[0x010F] = "SpyCam Maker"  # Make
    exif[0x0131] = "Secret Software 1.0"  # Software
    exif[0x0112] = 6  # orientation: rotate 90 degrees on display
    out = io.BytesIO()
    image.save(out, "JPEG", exif=exif.tobytes())
    return out.getvalue()


def bomb_bytes(side: int) -> bytes:
    """A small file that decodes to side x side pixels."""
    out = io.BytesIO()
    Image.new("1", (side, side), 0).save(out, "PNG", optimize=True)
    return out.getvalue()


BAD_UPLOADS = {
    "not an image": ("notes.png", b"just some text, not a picture at all\n" * 20, images.NOT_IMAGE),
    "truncated image": ("cut.png", png_bytes((400, 300))[:300], images.DAMAGED),
    "decompression bomb": ("bomb.png", bomb_bytes(6000), images.TOO_LARGE),
    "just over the pixel limit": ("big.png", bomb_bytes(4500), images.TOO_LARGE),
    "a side over 4096 px": ("long.png", png_bytes((5000, 10)), images.TOO_LARGE),
    "svg": (
        "map.svg",
        b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
        images.NOT_IMAGE,
    ),
    "html named png": (
        "innocent.png",
        b"<!doctype html><html><script>alert(document.cookie)</script></html>",
        images.NOT_IMAGE,
    ),
    "gif": (
        "anim.gif",
        b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,"
        b"\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;",
        images.NOT_IMAGE,
    ),
    "empty file": ("empty.png", b"", None),
}


def stored_files() -> list[Path]:
    root = Path(settings.MEDIA_ROOT)
    return [p for p in root.rglob("*") if p.is_file()] if root.exists() else []


def upload(name: str, data: bytes, content_type: str = "image/png") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type=content_type)


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize("case", sorted(BAD_UPLOADS))
def test_a_bad_portrait_is_refused_on_the_form_and_nothing_is_stored(as_user, gm, campaign, pc, case):
    name, data, message = BAD_UPLOADS[case]
    schema = campaign.ruleset_class.sheet_schema
    post = sheet_post(schema, pc.sheet, name="Aria renamed", kind="pc", owner=str(pc.owner_id))
    post["portrait_file"] = upload(name, data)
    response = as_user(gm).post(reverse("character_edit", args=[campaign.pk, pc.pk]), post)
    assert response.status_code == 200
    page = response.content.decode()
    assert "Please correct the fields marked below." in page
    if message:
        assert message in page
    pc.refresh_from_db()
    assert pc.name == "Aria" and not pc.portrait and not pc.portrait_token
    assert stored_files() == []


@pytest.mark.parametrize("case", sorted(BAD_UPLOADS))
def test_a_bad_map_is_refused_on_the_form_and_nothing_is_stored(as_user, gm, campaign, case):
    name, data, message = BAD_UPLOADS[case]
    response = as_user(gm).post(
        reverse("map_library", args=[campaign.pk]), {"name": "Cellar", "image": upload(name, data)}
    )
    assert response.status_code == 400
    if message:
        assert message in response.content.decode()
    assert not MapImage.objects.exists()
    assert stored_files() == []


def test_a_50_mb_upload_is_refused_without_being_decoded(as_user, gm, campaign, monkeypatch):
    opened = []
    monkeypatch.setattr(images.Image, "open", lambda *a, **k: opened.append(a))
    big = png_bytes() + b"\0" * (50 * 1024 * 1024)
    response = as_user(gm).post(
        reverse("map_library", args=[campaign.pk]), {"name": "Huge", "image": upload("huge.png", big)}
    )
    assert response.status_code == 400
    assert images.TOO_BIG in response.content.decode()
    assert opened == [] and not MapImage.objects.exists() and stored_files() == []


def test_a_bad_map_on_the_battle_page_changes_nothing(as_user, gm, campaign):
    battle = Battle.objects.get(
        pk=services.create_battle(campaign, gm, "Crypt", 8, 6, ruleset=campaign.ruleset).battle_id
    )
    name, data, message = BAD_UPLOADS["html named png"]
    response = as_user(gm).post(
        reverse("battle_map", args=[battle.pk]), {"image": upload(name, data), "fit": "on"}
    )
    assert response.status_code == 400 and message in response.content.decode()
    battle.refresh_from_db()
    assert battle.map is None and not MapImage.objects.exists() and stored_files() == []


def test_a_grid_needs_its_size_unless_the_map_is_stretched(as_user, gm, campaign):
    battle = Battle.objects.get(
        pk=services.create_battle(campaign, gm, "Crypt", 8, 6, ruleset=campaign.ruleset).battle_id
    )
    response = as_user(gm).post(
        reverse("battle_map", args=[battle.pk]),
        {"image": upload("m.png", png_bytes((800, 600))), "grid_cols": ""},
    )
    assert response.status_code == 400 and "Say how many squares" in response.content.decode()
    assert not MapImage.objects.exists() and stored_files() == []


# ---------------------------------------------------------------- what is stored


def test_a_portrait_is_re_encoded_into_a_round_token_and_a_sheet_image_without_exif(
    as_user, player, campaign, pc
):
    schema = campaign.ruleset_class.sheet_schema
    post = sheet_post(schema, pc.sheet, name="Aria", kind="pc", owner=str(player.pk))
    post["portrait_file"] = upload("me.jpg", jpeg_with_exif(), "image/jpeg")
    response = as_user(player).post(reverse("character_edit", args=[campaign.pk, pc.pk]), post)
    assert response.status_code == 302
    pc.refresh_from_db()
    assert pc.portrait.name.startswith(f"campaigns/{campaign.pk}/portraits/") and pc.portrait.name.endswith(
        "-sheet.webp"
    )
    with pc.portrait_token.open("rb") as f:
        token = Image.open(io.BytesIO(f.read()))
    assert token.format == "WEBP" and token.size == (images.TOKEN_SIZE, images.TOKEN_SIZE)
    assert token.convert("RGBA").getpixel((0, 0))[3] == 0  # the corner is outside the circle
    assert token.convert("RGBA").getpixel((64, 64))[3] == 255
    with pc.portrait.open("rb") as f:
        raw = f.read()
    sheet = Image.open(io.BytesIO(raw))
    assert sheet.format == "WEBP" and max(sheet.size) <= images.SHEET_SIZE
    assert sheet.size == (200, 300)  # the EXIF orientation was applied, then dropped
    assert not sheet.getexif() and b"SpyCam" not in raw and b"Secret Software" not in raw
    # The character's page shows the site's copy; never a link elsewhere.
    page = as_user(player).get(reverse("character", args=[campaign.pk, pc.pk])).content.decode()
    assert f'src="/media/{pc.portrait.name}"' in page


def test_replacing_and_removing_a_portrait_deletes_the_old_files(
    as_user, gm, campaign, pc, django_capture_on_commit_callbacks
):
    schema = campaign.ruleset_class.sheet_schema
    url = reverse("character_edit", args=[campaign.pk, pc.pk])
    post = sheet_post(schema, pc.sheet, name="Aria", kind="pc", owner=str(pc.owner_id))
    with django_capture_on_commit_callbacks(execute=True):
        as_user(gm).post(url, {**post, "portrait_file": upload("a.png", png_bytes())})
    first = {p.name for p in stored_files()}
    with django_capture_on_commit_callbacks(execute=True):
        as_user(gm).post(url, {**post, "portrait_file": upload("b.png", png_bytes(color=(0, 200, 0)))})
    second = {p.name for p in stored_files()}
    assert len(first) == len(second) == 2 and not first & second
    with django_capture_on_commit_callbacks(execute=True):
        as_user(gm).post(url, {**post, "remove_portrait": "on"})
    pc.refresh_from_db()
    assert not pc.portrait and stored_files() == []


def test_old_portrait_links_are_dropped_with_a_note(db, gm):
    from importlib import import_module

    from django.apps import apps

    campaign = make_campaign(gm)
    character = make_character(campaign, "Linky")
    Character.objects.filter(pk=character.pk).update(portrait="https://tracker.example/me.png")
    migration = import_module("vtt.migrations.0003_uploaded_portraits_and_maps")
    migration.drop_portrait_links(apps, None)
    character.refresh_from_db()
    assert character.portrait.name == ""
    assert (
        "tracker.example/me.png" in character.portrait_notice
        and "Upload the picture" in character.portrait_notice
    )


# ---------------------------------------------------------------- who may see them


@pytest.fixture
def other_campaign(db):
    other_gm = make_user("other-gm")
    return make_campaign(other_gm, name="Elsewhere")


def test_media_is_served_to_members_only_with_its_type_and_nosniff(
    client, as_user, gm, player, observer, outsider, campaign, other_campaign
):
    item = MapImage.create_from(campaign, "Bridge", images.map_from(io.BytesIO(png_bytes((640, 480)))))
    url = item.url
    assert url == f"/media/{item.image.name}"
    for member in (gm, player, observer):
        response = as_user(member).get(url)
        assert response.status_code == 200
        assert response["Content-Type"] == "image/webp"
        assert response["X-Content-Type-Options"] == "nosniff"
        assert "private" in response["Cache-Control"]
        assert b"".join(response.streaming_content)[:4] == b"RIFF"
    other_gm = other_campaign.memberships.get().user
    for stranger in (outsider, other_gm, None):
        assert as_user(stranger).get(url).status_code == 404


def test_a_player_asking_for_another_campaigns_map_or_portrait_gets_404(
    as_user, player, campaign, other_campaign
):
    elsewhere = make_character(other_campaign, "Secret NPC")
    elsewhere.set_portrait(images.portrait_from(io.BytesIO(png_bytes())))
    elsewhere.save()
    secret_map = MapImage.create_from(
        other_campaign, "Lair", images.map_from(io.BytesIO(png_bytes((300, 300))))
    )
    client = as_user(player)
    for url in (elsewhere.portrait_url, elsewhere.portrait_token_url, secret_map.url, secret_map.thumb_url):
        assert client.get(url).status_code == 404
    # The same file under this campaign's number is no way in either.
    moved = secret_map.image.name.replace(f"campaigns/{other_campaign.pk}/", f"campaigns/{campaign.pk}/")
    assert client.get("/media/" + moved).status_code == 404


@pytest.mark.parametrize(
    "name",
    [
        "../db.sqlite3",
        "campaigns/1/../../settings.py",
        "campaigns/1/maps/x.webp",
        "static/css/app.css",
        "campaigns/1/maps/" + "a" * 32 + "-map.png",
        "campaigns/1/other/" + "a" * 32 + "-map.webp",
    ],
)
def test_media_names_of_any_other_shape_are_404(as_user, gm, campaign, name):
    assert as_user(gm).get("/media/" + name).status_code == 404


def test_uploads_never_land_in_static():
    media = Path(settings.MEDIA_ROOT).resolve()
    for folder in (*settings.STATICFILES_DIRS, settings.STATIC_ROOT):
        assert not media.is_relative_to(Path(folder).resolve())


# ---------------------------------------------------------------- maps on battles


def test_the_gm_puts_a_map_on_a_battle_and_players_see_it(as_user, gm, player, outsider, campaign):
    battle = Battle.objects.get(
        pk=services.create_battle(campaign, gm, "Crypt", 8, 6, ruleset=campaign.ruleset).battle_id
    )
    url = reverse("battle_map", args=[battle.pk])
    assert as_user(player).post(url, {"fit": "on"}).status_code == 403
    response = as_user(gm).post(
        url,
        {
            "image": upload("crypt.webp", png_bytes((1600, 1200))),
            "grid_cols": "16",
            "grid_offset_x": "50",
            "grid_offset_y": "0",
        },
    )
    assert response.status_code == 302
    battle.refresh_from_db()
    assert battle.map is not None and battle.map.campaign_id == campaign.pk and battle.grid_cols == 16
    page = as_user(player).get(reverse("battle", args=[battle.pk])).content.decode()
    assert battle.map.url in page
    # 16 squares across 1600 px: 100 px a square; the grid starts 50 px in, so the image starts half a square left.
    assert 'data-map-w="16.0"' in page and 'data-map-h="12.0"' in page and 'data-map-x="-0.5"' in page
    assert as_user(player).get(battle.map.url).status_code == 200
    assert as_user(outsider).get(battle.map.url).status_code == 404
    # Picking "no map" from the library takes it off the board; the library keeps it.
    as_user(gm).post(url, {"library": "", "fit": "on"})
    battle.refresh_from_db()
    assert battle.map is None and MapImage.objects.count() == 1


def test_a_gm_cannot_pick_another_campaigns_map(as_user, gm, campaign, other_campaign):
    battle = Battle.objects.get(
        pk=services.create_battle(campaign, gm, "Crypt", 8, 6, ruleset=campaign.ruleset).battle_id
    )
    theirs = MapImage.create_from(other_campaign, "Lair", images.map_from(io.BytesIO(png_bytes((300, 300)))))
    response = as_user(gm).post(
        reverse("battle_map", args=[battle.pk]), {"library": str(theirs.pk), "fit": "on"}
    )
    assert response.status_code == 400
    battle.refresh_from_db()
    assert battle.map is None


def test_tokens_show_the_portrait_thumbnail_not_the_original(as_user, gm, player, campaign, pc):
    pc.set_portrait(images.portrait_from(io.BytesIO(png_bytes((900, 900)))))
    pc.save()
    battle_id = services.create_battle(campaign, gm, "Crypt", 8, 6, ruleset=campaign.ruleset).battle_id
    assert services.add_combatant(battle_id, gm, pc, pos=[2, 3]).ok
    page = as_user(player).get(reverse("battle", args=[battle_id])).content.decode()
    assert pc.portrait_token_url in page and pc.portrait_url not in page
    assert "Aria, party, unhurt" in page and "at C4" in page


# ---------------------------------------------------------------- storage settings


def test_an_s3_url_selects_django_storages_with_private_objects():
    entry = storage_from_url("s3://AKIA%2FX:s3cr%40t@minio.local:9000/vtt-media/uploads?region=eu-west-1")
    assert entry["BACKEND"] == "storages.backends.s3.S3Storage"
    options = entry["OPTIONS"]
    assert options["bucket_name"] == "vtt-media" and options["location"] == "uploads"
    assert options["access_key"] == "AKIA/X" and options["secret_key"] == "s3cr@t"
    assert options["endpoint_url"] == "https://minio.local:9000" and options["region_name"] == "eu-west-1"
    assert options["default_acl"] is None and options["file_overwrite"] is False
    assert (
        storage_from_url("s3+http://k:s@127.0.0.1:9000/b")["OPTIONS"]["endpoint_url"]
        == "http://127.0.0.1:9000"
    )


@pytest.mark.parametrize("url", ["ftp://x/bucket", "s3://key:secret@host/", "file:///tmp"])
def test_a_bad_storage_url_is_a_clear_configuration_error(url):
    from django.core.exceptions import ImproperlyConfigured

    with pytest.raises(ImproperlyConfigured):
        storage_from_url(url)


def test_the_default_storage_is_the_local_file_system():
    if os.environ.get("MEDIA_STORAGE_URL"):
        pytest.skip("a bucket is configured for this run")
    assert settings.STORAGES["default"]["BACKEND"] == "django.core.files.storage.FileSystemStorage"


def test_a_rows_board_gets_the_picture_as_its_backdrop(as_user, gm, player):
    campaign = make_campaign(gm, ruleset="paradigm", player=[player])
    battle = Battle.objects.get(
        pk=services.create_battle(campaign, gm, "Hall", 4, 2, ruleset="paradigm").battle_id
    )
    page = as_user(gm).get(reverse("battle_map", args=[battle.pk])).content.decode()
    assert "Backdrop" in page and "Squares across the image" not in page
    response = as_user(gm).post(
        reverse("battle_map", args=[battle.pk]),
        {"image": upload("hall.png", png_bytes((1200, 500))), "fit": "on"},
    )
    assert response.status_code == 302
    battle.refresh_from_db()
    page = as_user(player).get(reverse("battle", args=[battle.pk])).content.decode()
    assert "board-rows" in page and 'class="board-map"' in page and battle.map.url in page


# ---------------------------------------------------------------- issue 22, point 7: deleted means gone


def test_point_7_a_deleted_characters_portrait_files_are_removed_and_its_url_answers_404(
    as_user, gm, player, campaign, pc, django_capture_on_commit_callbacks
):
    schema = campaign.ruleset_class.sheet_schema
    post = sheet_post(schema, pc.sheet, name="Aria", kind="pc", owner=str(pc.owner_id))
    with django_capture_on_commit_callbacks(execute=True):
        as_user(gm).post(
            reverse("character_edit", args=[campaign.pk, pc.pk]),
            {**post, "portrait_file": upload("a.png", png_bytes())},
        )
    pc.refresh_from_db()
    urls = [pc.portrait_url, pc.portrait_token_url]
    assert all(as_user(player).get(url).status_code == 200 for url in urls)
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(player).post(reverse("character_delete", args=[campaign.pk, pc.pk]))
    assert response.status_code == 302
    assert stored_files() == []
    assert [as_user(member).get(url).status_code for url in urls for member in (gm, player)] == [404] * 4


def test_a_deleted_library_maps_files_are_removed_and_its_url_answers_404(
    as_user, gm, campaign, django_capture_on_commit_callbacks
):
    item = MapImage.create_from(campaign, "Bridge", images.map_from(io.BytesIO(png_bytes((640, 480)))))
    urls = [item.url, item.thumb_url]
    assert all(as_user(gm).get(url).status_code == 200 for url in urls)
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(gm).post(reverse("map_delete", args=[campaign.pk, item.pk]))
    assert response.status_code == 302
    assert stored_files() == []
    assert [as_user(gm).get(url).status_code for url in urls] == [404, 404]


def test_point_7_a_deleted_campaign_takes_its_files_and_a_file_no_row_names_is_not_served(
    as_user, gm, campaign, django_capture_on_commit_callbacks
):
    character = make_character(campaign, "Leftover")
    character.set_portrait(images.portrait_from(io.BytesIO(png_bytes())))
    character.save()
    item = MapImage.create_from(campaign, "Cave", images.map_from(io.BytesIO(png_bytes((320, 200)))))
    assert len(stored_files()) == 4 and as_user(gm).get(item.url).status_code == 200
    # A row that no longer names its files (say a storage failed to delete them): 404 all the same.
    portraits = {Path(character.portrait.name).name, Path(character.portrait_token.name).name}
    url = character.portrait_url
    Character.objects.filter(pk=character.pk).update(portrait="", portrait_token="")
    assert as_user(gm).get(url).status_code == 404
    # Deleting the campaign (the admin's way) deletes its maps and characters, and their files with them.
    with django_capture_on_commit_callbacks(execute=True):
        campaign.delete()
    assert {p.name for p in stored_files()} == portraits  # only the files no row named any more
