"""The market: the one price store (store.py, observations in SQLite), the price book plans read,
price file layouts and imports, quotes, the digest and its chart.

The only wing that reads or writes prices; plans nothing and knows no Slack.
"""
