"""The app's pictures in the docs, made from the real app at 1280x800: the Run view after a run on the demo app
(docs/images/app-run.png), the question before a risky click (app-confirm.png), then the Episodes view on that run
(app-episodes.png), the Train view after a short SFT run of a tiny model (built here, as the tests build it) on
those episodes and its comparison with the base model (app-train.png), the Record view (app-record.png) and
Settings (app-settings.png). A virtual display twice as wide holds the demo app on its left half and deskpilot's
window on its right half, so the agent sees the form while the window is photographed.

    python docs/screenshots.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

IMAGES = Path(__file__).resolve().parent / "images"
TASK = 'type "Ada Lovelace" into Full name, check "Remember me", select "Blue" from Colour then click "Save"'


def train_for_the_picture(app, window, folder: Path) -> None:  # noqa: ANN001
    """Label the runs, train a tiny model on them from the Train view, and compare it with its base on them."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the offline model builder lives there
    from tiny_models import build_tiny_llava

    episodes = folder / "episodes"
    subprocess.run([sys.executable, "-m", "deskpilot.app", "label", *map(str, episodes.iterdir())],
                   capture_output=True, check=True)
    view = window.train_view
    window.tabs.setCurrentWidget(view)
    view.method.setCurrentText("sft")
    view.model.setText(str(build_tiny_llava(folder / "tiny-llava")))
    view.out.setText(str(folder / "runs" / "sft"))
    view.held_out.setText(str(episodes))
    view.max_steps.setValue(30)
    done: list[int] = []
    view.finished.connect(done.append)
    view.start_training()
    while not done:
        app.processEvents()
        time.sleep(0.02)
    view.start_comparison()
    while not view.compare.isEnabled():
        app.processEvents()
        time.sleep(0.02)


def main() -> None:
    from deskpilot.core.display import VirtualDisplay

    folder = Path(tempfile.mkdtemp(prefix="deskpilot-shots-"))
    os.environ["DESKPILOT_CONFIG"] = str(folder / "config.toml")
    (folder / "config.toml").write_text("")
    with VirtualDisplay(2560, 800) as display:
        display.activate()
        from PySide6.QtCore import QEventLoop, Qt, QTimer
        from PySide6.QtWidgets import QApplication

        from deskpilot.app.views.confirm_dialog import ConfirmDialog
        from deskpilot.app.window import MainWindow
        from deskpilot.core.settings import load_settings
        from deskpilot.resources.demo import DemoApp

        demo = DemoApp(folder / "demo-state.json").start()
        app = QApplication(sys.argv[:1])
        window = MainWindow(load_settings(episodes_dir=folder / "episodes"))
        window.setGeometry(1280, 0, 1280, 800)
        window.show()

        def run(task: str) -> None:
            loop = QEventLoop()
            window.run_view.run_finished.connect(loop.quit)
            window.run_view.task.setText(task)
            window.run_view.run_button.click()
            loop.exec()
            window.run_view.run_finished.disconnect(loop.quit)
            app.processEvents()

        try:
            run(TASK)
            window.grab().save(str(IMAGES / "app-run.png"))

            def photograph_the_question() -> None:
                dialog = QApplication.activeModalWidget()
                if not isinstance(dialog, ConfirmDialog):
                    QTimer.singleShot(100, photograph_the_question)
                    return
                app.processEvents()
                dialog.grab().save(str(IMAGES / "app-confirm.png"))
                dialog.deny.click()

            QTimer.singleShot(100, photograph_the_question)
            run('click "Delete all"')

            def photograph(view, name: str) -> None:  # noqa: ANN001 - one of the window's views
                window.tabs.setCurrentWidget(view)
                app.processEvents()
                window.grab().save(str(IMAGES / name))

            episodes = window.episodes_view
            episodes.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)  # the form's run first
            episodes.table.selectRow(0)
            episodes.steps.setCurrentRow(1)
            episodes.set_label("good")
            episodes.steps.setCurrentRow(2)
            photograph(episodes, "app-episodes.png")
            train_for_the_picture(app, window, folder)
            photograph(window.train_view, "app-train.png")
            photograph(window.record_view, "app-record.png")
            photograph(window.settings_view, "app-settings.png")
        finally:
            window.close()
            demo.stop()
    print(f"wrote app-run, app-confirm, app-episodes, app-train, app-record and app-settings.png in {IMAGES}")


if __name__ == "__main__":
    main()
