"""Text that did not come from our templates: request words echoed back, vendor names, feed
and file cells, file names, URLs.

The rule, in two places so the command line stays readable:

* **At ingestion** (a quote's text, every cell of an imported file or feed, a word an error
  message echoes): `clean` strips control characters (keeping tab and newline) and the
  bidirectional-override and -isolate marks that make text read in another order than it is
  stored, and turns backticks into a look-alike (U+02CB), so the text can never close a code
  span or fence it is shown in. What is stored and printed is then harmless anywhere.
* **Where text is put into a Slack message** (bot/blocks.py for every message and its
  fallback `text`, the ephemeral notes, the command acks): `for_slack` escapes ``&``, ``<``
  and ``>`` as Slack asks (https://api.slack.com/reference/surfaces/formatting#escaping), so
  ``<!channel>``, ``<@U123>`` or ``<https://x|click>`` are shown as typed, never acted on. Our
  templates write no Slack markup with angle brackets, so the whole message is escaped once,
  template text included, and it reads the same.

URLs are shown through `redact_url`: without ``user:password@``, query string or fragment.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

# C0 controls but tab and newline, DEL, C1 controls; bidi embeddings/overrides (U+202A-202E),
# isolates (U+2066-2069), the marks (U+200E, U+200F, U+061C); and the byte order mark.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\ufeff]")
BACKTICK_STAND_IN = "\u02cb"  # MODIFIER LETTER GRAVE ACCENT: looks like ` but is no markup


def strip_controls(text: str) -> str:
    """`text` without control and bidi-override characters (tab and newline kept)."""
    return _UNSAFE.sub("", text)


def clean(text: str) -> str:
    """Text from outside (a user, a file, a feed) made safe to store, print and quote in any
    message: no control or bidi-override characters, no backticks (see the module's rule)."""
    return strip_controls(text).replace("`", BACKTICK_STAND_IN)


def for_slack(text: str) -> str:
    """A whole text as Slack mrkdwn shows it literally: control and bidi characters stripped,
    ``&``, ``<``, ``>`` escaped. Apply once, where the text goes into a Slack message."""
    return strip_controls(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def redact_url(url: str) -> str:
    """`url` without credentials (user:password@), query string or fragment: what may be shown.
    Anything that is not a URL with a host is returned cleaned and unchanged otherwise."""
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname
        port = parts.port
    except ValueError:
        return clean(url.split("?")[0].split("#")[0].rsplit("@", 1)[-1])
    if not parts.scheme or not host:
        return clean(url)
    netloc = (f"[{host}]" if ":" in host else host) + (f":{port}" if port else "")
    redacted = urlunsplit((parts.scheme, netloc, parts.path, "", ""))
    return clean(redacted)


def redact_urls_in(text: str) -> str:
    """Every http(s) URL inside `text` redacted (for messages that name a URL)."""
    return re.sub(r"(?i)\b[a-z][a-z0-9+.-]*://[^\s'\"<>]+", lambda m: redact_url(m[0]), text)
