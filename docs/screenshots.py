"""The app's pictures in the docs, made from the real app: the Run view after a run on the demo app
(docs/images/app-run.png, 1280x800) and the question before a risky click (docs/images/app-confirm.png). A virtual
display twice as wide holds the demo app on its left half and deskpilot's window on its right half, so the agent
sees the form while the window is photographed.

    python docs/screenshots.py
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

IMAGES = Path(__file__).resolve().parent / "images"
TASK = 'type "Ada Lovelace" into Full name, check "Remember me", select "Blue" from Colour then click "Save"'


def main() -> None:
    from deskpilot.core.display import VirtualDisplay

    folder = Path(tempfile.mkdtemp(prefix="deskpilot-shots-"))
    os.environ["DESKPILOT_CONFIG"] = str(folder / "config.toml")
    (folder / "config.toml").write_text("")
    with VirtualDisplay(2560, 800) as display:
        display.activate()
        from PySide6.QtCore import QEventLoop, QTimer
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
        finally:
            window.close()
            demo.stop()
    print(f"wrote {IMAGES / 'app-run.png'} and {IMAGES / 'app-confirm.png'}")


if __name__ == "__main__":
    main()
