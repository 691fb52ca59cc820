"""One listener module per Slack surface, each with a `register(app)`."""
