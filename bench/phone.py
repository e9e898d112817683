"""Phone bench: on throttled phones in Chromium, the time from a tap to the outcome on screen, and to
every other seat's board.

One table of ``bench/live.py`` (D20 Luck, a GM and five players, three goblins) on one server
process (daphne; PostgreSQL and Redis when ``DATABASE_URL`` and ``REDIS_URL`` are set, else the
embedded default). Every seat is a page in headless Chromium (``VTT_CHROMIUM``, default
/usr/bin/chromium) at a phone's size, logged in through the login form, its network throttled with
the DevTools protocol's ``Network.emulateNetworkConditions`` once the page is live: by default
WebPageTest's "3G Slow" profile (400 ms round trip, 400 kbit/s down and up); ``--latency-ms`` and
``--kbps`` change it (Chrome DevTools' "Slow 3G" preset is ``--latency-ms 2000 --kbps 400``).

Then, ``--taps`` times, the seat whose combatant acts taps "End turn" (the GM's page for the
goblins). Each page records, with a MutationObserver and the machine's clock, when the outcome line
appears on the tapping page and when each page's seq mark reaches the new seq. The bench prints each
tap, then the medians and maxima: tap -> outcome on screen, tap -> the tapping page's board, tap ->
the last other seat's board. Figures, not a test: the machine's load is printed beside them.

    .venv/bin/python bench/phone.py [--taps 12] [--latency-ms 400] [--kbps 400]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.live import PASSWORD, setup_tables, start_servers, stop  # noqa: E402

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-quic"]
PHONE = {"width": 390, "height": 844}

# Installed in every page once it is live: when the seq mark reaches each seq, when an outcome line shows.
WATCH = """() => {
  window.__seqAt = {};
  window.__outcomeAt = {};
  const mark = () => {
    const el = document.getElementById("battle-seq");
    const s = el ? parseInt(el.dataset.seq, 10) : 0;
    if (s && !(s in window.__seqAt)) { window.__seqAt[s] = Date.now(); }
    document.querySelectorAll("#battle-messages .msg.outcome[data-seq]").forEach((m) => {
      const k = m.dataset.seq;
      if (!(k in window.__outcomeAt)) { window.__outcomeAt[k] = Date.now(); }
    });
  };
  new MutationObserver(mark).observe(document.getElementById("battle-root"),
    { subtree: true, childList: true, attributes: true, attributeFilter: ["data-seq"] });
  mark();
}"""

TAP = """() => {
  const button = document.querySelector('#actions form.act-form[data-label="End turn"] button.opt');
  if (!button) { return 0; }
  const at = Date.now();
  button.click();
  return at;
}"""

SEQ_AT = """(s) => {
  const ks = Object.keys(window.__seqAt).map(Number).filter((k) => k >= s);
  return ks.length ? Math.min(...ks.map((k) => window.__seqAt[k])) : 0;
}"""


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--taps", type=int, default=12)
    p.add_argument("--latency-ms", type=float, default=400.0, help="round trip added to each request")
    p.add_argument("--kbps", type=float, default=400.0, help="throughput down and up, kbit/s")
    p.add_argument("--players", type=int, default=5, help="player seats besides the GM (1-5)")
    return p.parse_args()


async def drive(args: argparse.Namespace, setup: dict, port: int) -> list[dict]:
    from playwright.async_api import async_playwright

    base = f"http://127.0.0.1:{port}"
    battle = setup["battles"][0]
    users = [setup["gm"], *setup["players"][: args.players]]
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=os.environ.get("VTT_CHROMIUM", "/usr/bin/chromium"), args=CHROMIUM_ARGS
        )
        pages = {}
        for user in users:
            context = await browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
            page = await context.new_page()
            await page.goto(base + "/accounts/login/")
            await page.get_by_label("Username").fill(user)
            await page.get_by_label("Password").fill(PASSWORD)
            await page.get_by_role("button", name="Log in").click()
            await page.wait_for_url("**/campaigns/**")
            await page.goto(f"{base}/battles/{battle['id']}/")
            await page.wait_for_function("() => document.getElementById('conn').textContent === 'Live'")
            cdp = await context.new_cdp_session(page)
            await cdp.send("Network.enable")
            rate = args.kbps * 1000 / 8
            await cdp.send(
                "Network.emulateNetworkConditions",
                {
                    "offline": False,
                    "latency": args.latency_ms,
                    "downloadThroughput": rate,
                    "uploadThroughput": rate,
                },
            )
            await page.evaluate(WATCH)
            pages[user] = page
        print(
            f"{len(pages)} phone pages live, throttled: {args.latency_ms:g} ms, {args.kbps:g} kbit/s",
            flush=True,
        )
        taps: list[dict] = []
        gm_page = pages[setup["gm"]]
        for _ in range(args.taps):
            actor = await gm_page.evaluate(
                "() => (document.querySelector('#actions input[name=actor]') || {}).value || ''"
            )
            user = battle["owner"].get(actor, setup["gm"])
            page = pages.get(user)
            if page is None:  # a player without a page here: the GM taps for them
                user, page = setup["gm"], gm_page
            seq = int(await page.evaluate("() => document.getElementById('battle-seq').dataset.seq"))
            tapped = await page.evaluate(TAP)
            if not tapped:
                raise SystemExit(f"{user}'s page shows no End turn")
            await page.wait_for_function(
                "(s) => Object.keys(window.__outcomeAt).some((k) => +k > s)", arg=seq, timeout=60_000
            )
            outcome_at = await page.evaluate(
                "(s) => Math.min(...Object.keys(window.__outcomeAt).filter((k) => +k > s)"
                ".map((k) => window.__outcomeAt[k]))",
                seq,
            )
            boards = {}
            for other, p in pages.items():
                await p.wait_for_function(f"(s) => ({SEQ_AT})(s) > 0", arg=seq + 1, timeout=60_000)
                boards[other] = await p.evaluate(SEQ_AT, seq + 1)
            others = [at - tapped for other, at in boards.items() if other != user]
            taps.append(
                {
                    "who": "GM" if user == setup["gm"] else user.rsplit("-", 1)[-1],
                    "outcome": outcome_at - tapped,
                    "own_board": boards[user] - tapped,
                    "others_last": max(others),
                    "others_p50": statistics.median(others),
                }
            )
            t = taps[-1]
            print(
                f"tap by {t['who']}: outcome on screen {t['outcome']} ms, own board {t['own_board']} ms, "
                f"other seats' boards p50 {t['others_p50']:.0f} ms, last {t['others_last']} ms",
                flush=True,
            )
            await asyncio.sleep(0.5)
        await browser.close()
    return taps


def main() -> None:
    args = parse_args()
    load_before = os.getloadavg()[0]
    static = tempfile.mkdtemp(prefix="vtt-phone-static-")
    env = {**os.environ, "DEBUG": "0", "STATIC_ROOT": static, "PYTHONWARNINGS": "ignore"}
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True
    )
    setup = setup_tables(1, 1 + 5)
    phases = os.path.join(tempfile.gettempdir(), f"vtt-bench-phone-{os.getpid()}")
    procs, ports = start_servers(1, phases, extra_env={"STATIC_ROOT": static})
    try:
        taps = asyncio.run(drive(args, setup, ports[0]))
    finally:
        stop(procs)
    print(
        f"load average (1 min) before={load_before:.2f} after={os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; "
        f"database={'postgresql' if os.environ.get('DATABASE_URL') else 'sqlite'}"
    )
    for key, words in (
        ("outcome", "tap -> outcome on the tapping phone"),
        ("own_board", "tap -> the tapping phone's board"),
        ("others_last", "tap -> every other seat's board"),
    ):
        values = [t[key] for t in taps]
        print(f"{words}: p50={statistics.median(values):.0f} ms max={max(values):.0f} ms (n={len(values)})")
    outcome = statistics.median(t["outcome"] for t in taps)
    others = statistics.median(t["others_last"] for t in taps)
    print(f"tap_to_outcome_ms={outcome:.0f} tap_to_other_boards_ms={others:.0f}")


if __name__ == "__main__":
    main()
