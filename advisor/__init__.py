"""gpu-advisor core: sizes GPU training servers from model, data, deadline and budget.

Knows nothing of Slack; `bot/` is a thin adapter over it.
"""

__version__ = "0.1.0"
