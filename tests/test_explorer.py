"""The strategy explorer (``badugi explore``), opened and clicked through in headless Chromium.

Needs Debian's chromium and chromium-driver and the selenium package; `.ci/run` installs them
and sets BADUGI_REQUIRE_BROWSER=1, so in CI a missing browser fails instead of skipping.
"""

import os
import shutil

import numpy as np
import pytest

from solver.cfr.solve import solve
from solver.cli import main
from solver.game.config import load_preset
from solver.tables.explorer import explorer_data
from solver.tables.reports import class_groups
from solver.tables.strategy import load_strategy

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny-double-draw")
    solve(load_preset("tiny-double-draw"), iterations=150, out_dir=out)
    return out


def _show_table(strategy, history):
    """What `badugi show DIR --history H` prints per hand group: {group: (reach %, [freq %])} with
    the same rounding."""
    decision = strategy.decision(history)
    batch = strategy.history_stats(history)
    reach = batch.reach_of(0, decision.seat)
    probs = strategy.decision_strategy(decision)
    group_of, labels = class_groups(strategy)
    out = {}
    for g, label in enumerate(labels):
        members = group_of == g
        mass = reach[members].sum()
        if mass < 1e-6:
            continue
        weights = reach[members] / mass
        out[label] = (f"{100 * mass:.3f}", [f"{100 * (probs[a, members] * weights).sum():.1f}%"
                                            for a in range(len(decision.labels))])
    return out


def test_explorer_data_matches_show(solved):
    strategy = load_strategy(solved)
    data = explorer_data(strategy)
    tree = strategy.tree
    for history in ("", "c", "ck/", "ck/1", "ck/10/k"):
        node = data["nodes"][tree.node_at(history)]
        assert node["history"] == tree.history(tree.node_at(history))
        expected = _show_table(strategy, history)
        for label, (reach, freqs) in expected.items():
            g = data["group_labels"].index(label)
            mass, freq, _ = node["groups"][g]
            assert f"{100 * mass:.3f}" == reach
            assert [f"{100 * f:.1f}%" for f in freq] == freqs


def test_explorer_refuses_what_it_cannot_hold(solved, tmp_path, capsys):
    assert main(["explore", str(solved), "--max-mb", "0.001", "--out", str(tmp_path / "x.html")]) == 2
    assert "--prefix" in capsys.readouterr().err
    assert main(["explore", str(solved), "--prefix", "ck/9", "--out", str(tmp_path / "x.html")]) == 2
    assert "not possible" in capsys.readouterr().err
    assert main(["explore", str(solved), "--prefix", "ck/", "--out", str(tmp_path / "sub.html")]) == 0
    data = explorer_data(load_strategy(solved), prefix="ck/")
    assert all(n["history"].startswith("ck/") for n in data["nodes"].values())


@pytest.fixture(scope="module")
def browser():
    if not (CHROMIUM and CHROMEDRIVER):
        if os.environ.get("BADUGI_REQUIRE_BROWSER"):
            pytest.fail("headless Chromium and chromedriver are required (apt-get install chromium chromium-driver)")
        pytest.skip("no chromium/chromedriver here")
    webdriver = pytest.importorskip("selenium.webdriver")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--no-first-run", "--window-size=1300,1100"):
        options.add_argument(flag)
    from selenium.webdriver.chrome.service import Service

    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


def _page_table(driver):
    from selenium.webdriver.common.by import By

    out = {}
    for row in driver.find_elements(By.CSS_SELECTOR, "#stats tr[data-group]"):
        cells = [c.text for c in row.find_elements(By.TAG_NAME, "td")]
        out[row.get_attribute("data-group")] = (cells[1], [c.text for c in row.find_elements(By.CSS_SELECTOR,
                                                                                          "td[data-action]")])
    return out


def test_explorer_in_a_browser_reads_what_show_prints(solved, tmp_path, browser):
    from selenium.webdriver.common.by import By

    page = tmp_path / "explorer.html"
    assert main(["explore", str(solved), "--out", str(page)]) == 0
    strategy = load_strategy(solved)
    browser.get(page.resolve().as_uri())
    assert browser.find_element(By.ID, "history").text == ""
    assert _page_table(browser) == _show_table(strategy, "")
    # Three histories, clicked action by action from the start.
    for path in (["c", "k", "1", "0"], ["c", "k", "0", "2", "k"], ["c", "k", "2", "2", "b"]):
        browser.find_element(By.CSS_SELECTOR, "#path a[data-step='root']").click()
        for label in path:
            browser.find_element(By.CSS_SELECTOR, f"#actions button[data-action='{label}']").click()
            history = browser.find_element(By.ID, "history").text
            assert _page_table(browser) == _show_table(strategy, history), history
        assert history == strategy.tree.history(strategy.tree.node_at(history))
        # A hand typed in: its policy as `badugi show --history H --hand X` prints it.
        hand = "As2h"
        box = browser.find_element(By.ID, "hand")
        box.clear()
        box.send_keys(hand)
        browser.find_element(By.ID, "lookup").click()
        shown = {s.get_attribute("data-action"): s.text.split()[-1]
                 for s in browser.find_elements(By.CSS_SELECTOR, "#hand-result span[data-action]")}
        policy = strategy.policy(history, hand)
        decision = strategy.decision(history)
        # The page keeps a hand's policy in steps of 1/65,535: at a rounding edge its second
        # decimal can be one off what `badugi show` prints (76.10% for 76.09%), never more.
        assert sorted(shown) == sorted(decision.labels), (history, shown)
        for label in decision.labels:
            page = float(shown[label].rstrip("%"))
            assert abs(page - 100 * policy.get(label, 0.0)) <= 0.005 + 100 / 65535 / 2 + 1e-9, (history, shown, policy)
    browser.save_screenshot(str(tmp_path / "explorer.png"))
    assert (tmp_path / "explorer.png").stat().st_size > 10_000


def test_every_decision_point_says_street_pot_bet_to_call(solved):
    """Each exported decision point carries its street, pot and bet to call (big blinds), those
    of the built tree's node."""
    strategy = load_strategy(solved)
    tree = strategy.tree
    data = explorer_data(strategy)
    for history, street in (("", "before draw 1"), ("c", "before draw 1"), ("ck/", "draw 1"), ("ck/1", "draw 1"),
                            ("ck/10/", "after draw 1"), ("ck/10/b", "after draw 1"), ("ck/10/bc/", "draw 2"),
                            ("ck/10/bc/00/kb", "after draw 2")):
        node = tree.node_at(history)
        point = data["nodes"][node]
        contrib = tree.contrib[node]
        assert (point["street"], point["pot"]) == (street, pytest.approx(contrib.sum())), history
        assert point["to_call"] == pytest.approx(0.0 if point["draw"] else contrib.max() - contrib[point["seat"]])
    assert data["nodes"][tree.node_at("ck/10/b")]["to_call"] == 1.0  # a bet of the second round


def test_explorer_in_a_browser_names_seats_and_greys_groups_never_there(solved, tmp_path, browser):
    """The page names whose turn it is, the street, the pot and the bet to call; a hand group the
    deciding player never holds there is grey, not coloured as if played."""
    from selenium.webdriver.common.by import By

    page = tmp_path / "explorer.html"
    assert main(["explore", str(solved), "--out", str(page)]) == 0
    browser.get(page.resolve().as_uri())
    for label in ("c", "k", "1", "0", "b"):
        browser.find_element(By.CSS_SELECTOR, f"#actions button[data-action='{label}']").click()
    assert browser.find_element(By.ID, "title").text.startswith("button to act, after draw 1")
    assert browser.find_element(By.ID, "stakes").text == "pot 3 bb; 1 bb to call"
    assert browser.find_element(By.ID, "opp-title").text == "The big blind's range here"
    strategy = load_strategy(solved)
    node = explorer_data(strategy)["nodes"][strategy.tree.node_at("ck/10/b")]
    never = {label for label, (mass, _, _) in zip(explorer_data(strategy)["group_labels"], node["groups"])
             if mass < 1e-6}
    grey = {cell.get_attribute("data-group") for cell in browser.find_elements(By.CSS_SELECTOR, "#grid td[data-group]")
            if cell.find_elements(By.CSS_SELECTOR, ".cell.never")}
    assert never and grey == never


@pytest.fixture(scope="module")
def stored(tree_less_run, tmp_path_factory):
    """A tiny triple draw solved without its tree, as a compact strategy stored in chunks."""
    from solver.tables.compact import make_compact

    out = tmp_path_factory.mktemp("served") / "compact"
    make_compact(tree_less_run(40), out, min_reach=1e-5)
    return out


def test_a_served_explorer_reads_each_spot_as_badugi_show_does(stored, browser):
    """``badugi explore --serve`` (the default for a game whose tree is never built): the page
    asks for each spot when it is opened; every one clicked from the first decision down to the
    last round shows what `badugi show` prints, and a typed hand its mix and each action's EV."""
    import threading
    import time

    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from solver.tables.explorer import ExplorerServer, child_points

    strategy = load_strategy(stored)
    assert strategy.store is not None
    server = ExplorerServer(strategy, port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        def opened(history):
            WebDriverWait(browser, 20, ignored_exceptions=(StaleElementReferenceException,)).until(
                lambda b: b.find_element(By.ID, "history").text == history and not b.find_element(By.ID, "status").text)

        browser.get(server.url)
        opened("")
        assert _page_table(browser) == _show_table(strategy, "")
        # From the start down to the last round's betting, action by action.
        history = ""
        for label in ["c", "k", "1", "0", "k", "k", "2", "1", "k", "k", "0", "0", "b"]:
            history = {a: child for a, child, _ in child_points(strategy.templates, history)}[label]
            browser.find_element(By.CSS_SELECTOR, f"#actions button[data-action='{label}']").click()
            opened(history)
            assert _page_table(browser) == _show_table(strategy, history), history
        assert history.count("/") == 6 and strategy.spot(history).round == 3
        box = browser.find_element(By.ID, "hand")
        box.clear()
        box.send_keys("As2h")
        browser.find_element(By.ID, "lookup").click()
        spot = strategy.spot(history)
        value = strategy.hand_class("As2h")
        evs = {s.get_attribute("data-ev"): s.text for s in browser.find_elements(By.CSS_SELECTOR, "#hand-result span[data-ev]")}
        for a, label in enumerate(spot.labels):
            expected = spot.action_ev_mbb()[a, value]
            shown = evs[label]
            assert (shown == "(EV -)") if not np.isfinite(expected) else \
                (int(shown.split()[1].lstrip("+")) == round(expected)), (label, shown, expected)
        # A history that is not a decision is refused in a line, and the page says so.
        browser.get(server.url)
        opened("")
        start = time.perf_counter()
        answer = browser.execute_async_script(
            "const done = arguments[0]; fetch('spot?history=zz').then(r => r.text().then(t => done([r.status, t])))")
        assert answer[0] == 400 and "'z' is not possible" in answer[1] and time.perf_counter() - start < 5
    finally:
        server.shutdown()
        server.server_close()
