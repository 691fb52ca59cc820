"""The digest's price-history chart, drawn with matplotlib (Agg backend, no display needed).

One line per GPU: the cheapest on-demand price per GPU-hour in each snapshot, with a title,
a legend, axis labels and units. The text inside the image is English and neutral (GPU names,
dates, USD): the deployment cannot count on a CJK font (none is a dependency we can rely on),
so a Chinese channel gets the Chinese in the message around the image: the file's title and
alt text (templates/chart.j2).
"""

from __future__ import annotations

import datetime as dt
import io

import matplotlib

matplotlib.use("Agg")  # before pyplot: no display, no GUI toolkit
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

TITLE = "Cheapest on-demand price per GPU-hour"
X_LABEL = "Snapshot date"
Y_LABEL = "USD per GPU-hour"
SIZE_IN = (8.0, 4.5)
DPI = 100  # 800 x 450 px: readable in Slack's preview, well under 100 KB


def history_figure(series: dict[str, list[tuple[str, float]]], until: str | None = None) -> Figure:
    """The chart as a matplotlib Figure (not yet drawn to PNG), one line per GPU."""
    fig = Figure(figsize=SIZE_IN, dpi=DPI)
    ax = fig.add_subplot()
    for name, values in series.items():
        values = sorted(values)
        dates = [dt.date.fromisoformat(d) for d, _ in values]
        ax.plot(
            dates, [v for _, v in values], marker="o", markersize=3, linewidth=1.8, label=name, drawstyle="steps-post"
        )  # a price holds until the next snapshot
    title = TITLE + (f", to {until}" if until else "")
    ax.set_title(title, fontsize=12)
    ax.set_xlabel(X_LABEL)
    ax.set_ylabel(Y_LABEL)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"${v:,.2f}"))
    ax.set_ylim(bottom=0)
    ax.grid(True, color="#dddddd", linewidth=0.6)
    if series:
        ax.legend(
            title="GPU", fontsize=8, title_fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False
        )
    else:
        ax.text(0.5, 0.5, "no prices on record", ha="center", va="center", transform=ax.transAxes)
    fig.autofmt_xdate()
    fig.tight_layout()
    return fig


def png(fig: Figure) -> bytes:
    out = io.BytesIO()
    fig.savefig(out, format="png", dpi=DPI, metadata={"Software": None})
    return out.getvalue()


def history_png(series: dict[str, list[tuple[str, float]]], until: str | None = None) -> bytes:
    """PNG bytes of history_figure."""
    return png(history_figure(series, until))
