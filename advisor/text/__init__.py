"""Text: the one Jinja environment that turns the core's numbers into English or Chinese words.

Holds no numbers of its own and computes nothing; every word the product shows comes through here.
"""
