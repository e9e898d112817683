"""What each account's name looks like (vtt.names.skeleton), stored so lookalike names are found by equality."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps


def skeletons_of_existing_accounts(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    from vtt.names import skeleton

    User = apps.get_model(settings.AUTH_USER_MODEL)  # "app_label.Model"
    AccountName = apps.get_model("vtt", "AccountName")
    AccountName.objects.bulk_create(
        [
            AccountName(user_id=pk, skeleton=skeleton(name)[:600])
            for pk, name in User.objects.values_list("pk", "username").iterator()
        ],
        batch_size=500,
    )


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("vtt", "0004_content_entries"),
    ]

    operations = [
        migrations.CreateModel(
            name="AccountName",
            fields=[
                (
                    "user",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="+",
                        serialize=False,
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                ("skeleton", models.CharField(db_index=True, max_length=600)),
            ],
        ),
        migrations.RunPython(skeletons_of_existing_accounts, migrations.RunPython.noop),
    ]
