"""Chromium under Selenium with its own throw-away profile: the visible window MiniWoB runs in, and the headless
renderer of synthetic pages for the detector."""

from __future__ import annotations

import shutil
import stat
import tempfile
from pathlib import Path
from typing import Any

from deskpilot.core.errors import TrainingError

CHROMIUM_FLAGS = ("--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                  "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-extensions",
                  "--disable-features=Translate,MediaRouter", "--password-store=basic")


def find_browser() -> tuple[str, str]:
    """Paths of Chromium and chromedriver, or a one-line error saying how to install them."""
    chromium = next((p for p in (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")) if p),
                    None)
    driver = shutil.which("chromedriver") or ("/usr/bin/chromedriver" if Path("/usr/bin/chromedriver").exists()
                                              else None)
    if chromium is None or driver is None:
        raise TrainingError("this needs Chromium and chromedriver: run `bash installers/setup.sh --bench` "
                             "(Debian: apt install chromium chromium-driver)")
    return chromium, driver


class Chromium:
    """A Chromium started with `arguments` (plus --headless=new when `headless`); `driver` is its Selenium
    WebDriver. Use as a context manager: closing it quits the browser and removes its profile."""

    def __init__(self, arguments: list[str], headless: bool = False):
        from selenium import webdriver
        from selenium.common.exceptions import WebDriverException
        from selenium.webdriver.chrome.service import Service

        chromium, driver = find_browser()
        self.home = Path(tempfile.mkdtemp(prefix="deskpilot-chromium-"))
        wrapper = self.home / "chromium.sh"
        # Chromium as root needs --no-sandbox, which the package only adds headless; its TMPDIR litter stays here.
        wrapper.write_text(f'#!/bin/sh\nexport TMPDIR="{self.home}"\nexec "{chromium}" {" ".join(CHROMIUM_FLAGS)} '
                           '"$@"\n')
        wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
        options = webdriver.ChromeOptions()
        options.binary_location = str(wrapper)
        options.add_experimental_option("excludeSwitches", ["enable-automation"])
        for argument in [f"--user-data-dir={self.home / 'profile'}", *arguments] + (["--headless=new"] if headless
                                                                                   else []):
            options.add_argument(argument)
        try:
            self.driver: Any = webdriver.Chrome(service=Service(driver), options=options)
        except WebDriverException as exc:
            shutil.rmtree(self.home, ignore_errors=True)
            raise TrainingError(f"cannot start Chromium: {exc.msg or exc}".splitlines()[0]) from None

    def close(self) -> None:
        try:
            self.driver.quit()
        except Exception:  # the browser may already be gone; nothing else to clean in it
            pass
        shutil.rmtree(self.home, ignore_errors=True)

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
