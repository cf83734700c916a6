"""The deskpilot desktop app: one window with Run, Record, Episodes, Train and Settings tabs, a status bar and a
tray icon. Started with `deskpilot app` (or plain `deskpilot` where there is a display)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QMainWindow, QStyle, QSystemTrayIcon, QTabWidget

from deskpilot.core.episode import empty_trash
from deskpilot.core.geometry import Box
from deskpilot.core.settings import Settings, default_config_file

from .views.episodes_view import EpisodesView
from .views.gui_thread_gc import GuiThreadCollector
from .views.record_view import RecordView
from .views.run_view import RunView
from .views.settings_view import SettingsView
from .views.train_view import TrainView


class MainWindow(QMainWindow):
    def __init__(self, settings: Settings):
        super().__init__()
        self.setWindowTitle("deskpilot")
        self.collector = GuiThreadCollector(self)  # Qt objects in reference cycles are freed on this thread only
        self.settings = settings
        self.run_view = RunView(settings, self.own_region)
        self.episodes_view = EpisodesView(settings.episodes_dir)
        self.record_view = RecordView(settings, self.own_region)
        self.train_view = TrainView(settings.episodes_dir)
        self.settings_view = SettingsView(settings)
        self.tabs = QTabWidget()
        for view, name in ((self.run_view, "Run"), (self.record_view, "Record"), (self.episodes_view, "Episodes"),
                           (self.train_view, "Train"), (self.settings_view, "Settings")):
            self.tabs.addTab(view, name)
            view.status.connect(lambda text: self.statusBar().showMessage(text))
        self.setCentralWidget(self.tabs)
        self.run_view.run_finished.connect(lambda *_: self.episodes_view.refresh())
        self.record_view.recorded.connect(lambda *_: self.episodes_view.refresh())
        self.settings_view.saved.connect(self._apply_settings)
        self.train_view.use_model.connect(self._use_model)
        self.episodes_view.replay_requested.connect(self._replay)
        self._region = Box(0, 0, 0, 0)
        self.tray = self._tray()
        if not default_config_file().is_file():  # first start: say what works on this machine
            self.statusBar().showMessage("first start: Settings shows what works on this machine")
            self.settings_view.run_doctor()

    def own_region(self) -> list[Box]:
        """deskpilot's own window in screen pixels (kept current by move/resize events; read by the agent thread)."""
        return [self._region]

    def showEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt's name
        super().showEvent(event)
        self.collector.start()

    def moveEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt's name
        super().moveEvent(event)
        self._remember_region()

    def resizeEvent(self, event) -> None:  # noqa: ANN001, N802
        super().resizeEvent(event)
        self._remember_region()

    def _remember_region(self) -> None:
        frame = self.frameGeometry()
        self._region = Box(frame.left(), frame.top(), frame.right() + 1, frame.bottom() + 1)

    def _apply_settings(self, settings: Settings) -> None:
        self.settings = self.run_view.settings = self.record_view.settings = settings
        self.run_view.planner.setCurrentText(settings.planner)
        self.run_view.model.setText(settings.model or "")

    def _replay(self, episode: str, start: int) -> None:
        self.tabs.setCurrentWidget(self.run_view)
        self.run_view.start_replay(Path(episode), start)

    def closeEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt's name
        empty_trash(self.settings.episodes_dir)  # an episode deleted in this session is gone for good now
        self.collector.stop()
        super().closeEvent(event)

    def _use_model(self, folder: str) -> None:
        self.run_view.use_model(folder)
        self.tabs.setCurrentWidget(self.run_view)

    def _tray(self) -> QSystemTrayIcon | None:
        if not QSystemTrayIcon.isSystemTrayAvailable():
            return None
        tray = QSystemTrayIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_ComputerIcon), self)
        tray.setToolTip("deskpilot")
        tray.activated.connect(lambda *_: (self.showNormal(), self.raise_(), self.activateWindow()))
        tray.show()
        return tray


def run_app(settings: Settings, geometry: tuple[int, int, int, int] | None = None) -> int:
    started = time.perf_counter()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("deskpilot")
    app.setWindowIcon(QIcon.fromTheme("input-mouse"))
    window = MainWindow(settings)
    if geometry:
        window.setGeometry(*geometry)
    else:
        window.resize(1200, 760)
    window.show()
    app.processEvents()
    if not window.statusBar().currentMessage():  # the first start's hint stays
        window.statusBar().showMessage(f"ready in {(time.perf_counter() - started) * 1000:.0f} ms")
    return app.exec()
