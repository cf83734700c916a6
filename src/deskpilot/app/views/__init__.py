"""The PySide6 desktop app's views: run the agent, browse and label episodes, train."""
