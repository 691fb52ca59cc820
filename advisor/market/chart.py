"""The digest's price-history chart, drawn with matplotlib (Agg backend, no display needed).

One line per GPU: the cheapest on-demand price per GPU-hour in each snapshot, with a title,
a legend, axis labels and units, worded by templates/chart.j2 in the reader's language. The
deployment cannot count on a system CJK font, so Chinese is drawn with a subset of Noto Sans
CJK SC shipped in data/fonts (SIL OFL 1.1, the glyphs of the chart's Chinese words and ASCII);
GPU names, dates and prices stay in matplotlib's own font.
"""

from __future__ import annotations

import datetime as dt
import io
from functools import cache

import matplotlib

matplotlib.use("Agg")  # before pyplot: no display, no GUI toolkit
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.font_manager import FontProperties  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

from advisor.resources import data_dir  # noqa: E402
from advisor.text.render import phrase  # noqa: E402

# The glyphs of templates/chart.j2's Chinese and ASCII, cut from Noto Sans CJK SC (data/fonts/README.md).
CJK_FONT = "fonts/NotoSansCJKsc-chart-subset.otf"
SIZE_IN = (8.0, 4.5)
DPI = 100  # 800 x 450 px: readable in Slack's preview, well under 100 KB


def chart_words(lang: str, until: str) -> list[str]:
    """Every label history_figure draws in `lang`, GPU names and numbers aside."""
    return [
        phrase(lang, "heading", until, file="chart"),
        phrase(lang, "x_label", file="chart"),
        phrase(lang, "y_label", file="chart"),
        phrase(lang, "legend", file="chart"),
        phrase(lang, "empty", file="chart"),
    ]


def cjk_text() -> str:
    """The characters the subset font must hold beyond ASCII (data/fonts/README.md)."""
    return "".join(sorted({ch for text in chart_words("zh", "2000-01-01") for ch in text if ord(ch) > 0x7E}))


@cache
def _font(lang: str) -> FontProperties | None:
    return FontProperties(fname=str(data_dir() / CJK_FONT)) if lang == "zh" else None


def history_figure(series: dict[str, list[tuple[str, float]]], until: str, lang: str = "en") -> Figure:
    """The chart as a matplotlib Figure (not yet drawn to PNG), one line per GPU."""
    font = _font(lang)
    heading, x_label, y_label, legend_title, empty = chart_words(lang, until)
    fig = Figure(figsize=SIZE_IN, dpi=DPI)
    ax = fig.add_subplot()
    for name, values in series.items():
        values = sorted(values)
        dates = [dt.date.fromisoformat(d) for d, _ in values]
        ax.plot(
            dates, [v for _, v in values], marker="o", markersize=3, linewidth=1.8, label=name, drawstyle="steps-post"
        )  # a price holds until the next snapshot
    ax.set_title(heading, fontproperties=font)
    ax.title.set_fontsize(12)  # after the font: its properties carry a size of their own
    ax.set_xlabel(x_label, fontproperties=font)
    ax.set_ylabel(y_label, fontproperties=font)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"${v:,.2f}"))
    ax.set_ylim(bottom=0)
    ax.grid(True, color="#dddddd", linewidth=0.6)
    if series:
        legend = ax.legend(
            title=legend_title,
            fontsize=8,
            title_fontsize=8,
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
            frameon=False,
        )
        if font is not None:
            legend.get_title().set_fontproperties(font.copy())
            legend.get_title().set_fontsize(8)
    else:
        ax.text(
            0.5,
            0.5,
            empty,
            ha="center",
            va="center",
            transform=ax.transAxes,
            fontproperties=font,
        )
    fig.autofmt_xdate()
    fig.tight_layout()
    return fig


def png(fig: Figure) -> bytes:
    out = io.BytesIO()
    fig.savefig(out, format="png", dpi=DPI, metadata={"Software": None})
    return out.getvalue()


def history_png(series: dict[str, list[tuple[str, float]]], until: str, lang: str = "en") -> bytes:
    """PNG bytes of history_figure."""
    return png(history_figure(series, until, lang))
