"""The request language: turns what a user types into a TrainingRequest, and says why when it cannot.

Owns the words, their defaults and their checks; computes no plan, reads no prices, knows no Slack.
"""
