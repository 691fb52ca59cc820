"""Knowledge: the FAQ drawn from the source guides, searched in English and Chinese.

Answers general questions; plans nothing, reads no prices, knows no Slack.
"""
