"""The GM's odds panel (``combat/odds.html``): the job as it stands, rendered for the buttons, the poll
and the runner's pushes. Only a GM ever receives it."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.template.loader import render_to_string

from combat import live, odds_queue
from combat.models import OddsJob

FIGHTS = int(getattr(settings, "ODDS_FIGHTS", 500))
Status = OddsJob.Status


def _stock_words(stock: list[dict[str, Any]]) -> list[str]:
    """Average stock in a player's words: ``"MP 6.5"``, ``"Healing Potion 0.4 of 2"`` (the figures kept
    on one line: no-break spaces)."""
    out = []
    for s in stock:
        left = f"{s['left']:.1f}".removesuffix(".0")
        out.append(f"{s['name']} {left}" + (f"\u00a0of\u00a0{s['full']}" if s.get("full") else ""))
    return out


def panel_context(job: OddsJob | None, battle_id: int, message: str = "") -> dict[str, Any]:
    result = job.result if job is not None and job.status == Status.DONE else None
    members = []
    if result:
        for m in result["members"]:
            max_hp = max(1, m.get("max_hp") or 1)
            members.append(
                {
                    "name": m["name"],
                    "down": round(100 * m["down"]),
                    "hp": round(m["hp"]),
                    "max_hp": m.get("max_hp") or 0,
                    "hp_pct": round(100 * m["hp"] / max_hp),
                    "stock": _stock_words(m.get("stock", [])),
                }
            )
    return {
        "job": job,
        "battle_id": battle_id,
        "message": message,
        "result": result,
        "win": round(100 * result["win"]) if result else 0,
        "draws": round(100 * result.get("draws", 0)) if result else 0,
        "members": members,
        "any_stock": any(m["stock"] for m in members),
        "shared": _stock_words(result.get("shared", [])) if result else [],
        "percent": round(100 * job.done / job.total) if job is not None and job.total else 0,
        "fights": FIGHTS,
        "busy": job is not None and job.status in (Status.QUEUED, Status.RUNNING),
        "position": odds_queue.position(job) if job is not None else 0,
        "cut": bool(result and result.get("cut")),
    }


def panel_html(job: OddsJob | None, battle_id: int, message: str = "", request: Any = None) -> str:
    return render_to_string("combat/odds.html", panel_context(job, battle_id, message), request=request)


def push(job_id: int) -> None:
    """Send the GM's odds panel to the battle's sockets (a GM's socket alone sends it on)."""
    job = OddsJob.objects.filter(pk=job_id).first()
    if job is None or job.battle_id is None:
        return
    live.publish(
        live.battle_group(job.battle_id), {"type": "odds.push", "gm": panel_html(job, job.battle_id)}
    )
