"""Planning: chooses GPUs, counts and layouts, sizes the servers, costs them, and answers follow-ups.

Builds on the engine and the price data it is given; renders nothing itself and knows no Slack.
"""
