"""Delete the throwaway tables of "Try a battle" and their guest accounts once they are a day old.

``make run`` runs it when the server starts and then every hour (``vtt.serve``); run it from cron
when serving another way. Nothing else is deleted: campaigns that are no throwaway tables, their
guests (a player who joined from an invite link) and every account that was kept stay.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from vtt.guests import TRIAL_LIFETIME, delete_old_trials


class Command(BaseCommand):
    help = "Delete throwaway tables (Try a battle) and their guest accounts older than a day."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--hours",
            type=float,
            default=TRIAL_LIFETIME.total_seconds() / 3600,
            help="Age in hours from which a throwaway table is deleted (default: 24).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        tables, accounts = delete_old_trials(timedelta(hours=options["hours"]))
        if tables or accounts or options["verbosity"] > 1:
            self.stdout.write(f"Deleted {tables} throwaway table(s) and {accounts} guest account(s).")
