"""Planning: task + history + screen -> the next action, and the agent loop that carries actions out."""
