"""A screenshot of the strategy explorer for results/ and the README (headless Chromium).

    python scripts/screenshot_explorer.py                      # runs/single-draw at ck/ -> results/explorer/
    python scripts/screenshot_explorer.py --dir runs/single-draw --clicks c k --hand 7h5d4d3s

Writes the explorer page of DIR (``badugi explore``) to a temporary file, opens it in headless
Chromium (Debian's chromium and chromium-driver, the selenium package), clicks the actions given,
types the hand and saves results/explorer/explorer.png.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from solver.tables.explorer import write_explorer  # noqa: E402
from solver.tables.strategy import load_strategy  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default="runs/single-draw", help="a strategy directory (relative to the repository)")
    parser.add_argument("--clicks", nargs="*", default=["c", "k"], help="actions to click from the start")
    parser.add_argument("--hand", default="7h5d4d3s")
    parser.add_argument("--out", default=str(ROOT / "results" / "explorer" / "explorer.png"))
    args = parser.parse_args()
    os.chdir(ROOT)  # the page names the directory as given
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--no-first-run", "--window-size=1250,1400", "--hide-scrollbars"):
        options.add_argument(flag)
    with tempfile.TemporaryDirectory() as tmp:
        page = write_explorer(load_strategy(args.dir), Path(tmp) / "explorer.html")
        driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
        try:
            driver.get(page.resolve().as_uri())
            for label in args.clicks:
                driver.find_element(By.CSS_SELECTOR, f"#actions button[data-action='{label}']").click()
            driver.find_element(By.ID, "hand").send_keys(args.hand)
            driver.find_element(By.ID, "lookup").click()
            out = Path(args.out)
            out.parent.mkdir(parents=True, exist_ok=True)
            driver.save_screenshot(str(out))
        finally:
            driver.quit()
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
