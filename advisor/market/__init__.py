"""The market: the one price store (observations in SQLite), imports and feeds, quotes, the digest and its chart.

The only wing that reads or writes prices; plans nothing and knows no Slack.
"""
