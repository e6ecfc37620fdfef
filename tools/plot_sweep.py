#!/usr/bin/env python3
# Plots a `tbdrsim sweep` results.csv (tools/doc/sweeps.md): a line plot of one column against another,
# one line per value of series columns, or a heatmap of a value over two parameters. matplotlib from
# Debian's python3-matplotlib (tools/setup.sh installs it).
#
#   tools/plot_sweep.py DIR/results.csv --x set.tiling.width --y dram.write_bytes --series set.dram.bytes_per_cycle -o plot.png
#   tools/plot_sweep.py DIR/results.csv --kind heatmap --x set.tiling.width --y set.tiling.height --value frame_cycles -o heat.png
#
# Rows: --row total (default) keeps the per-(trace, configuration) totals, --row pass the per-pass rows;
# --where COL=VALUE (repeatable) keeps matching rows. Rows that share a point are combined by --agg.
import argparse
import csv
import os
import sys

try:
    import matplotlib
except ImportError:
    # Debian's python3-matplotlib serves /usr/bin/python3; another python3 first on PATH may lack it.
    if os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3") and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    sys.exit("plot_sweep.py: matplotlib is missing: apt-get install python3-matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def number(text):
    try:
        return float(text)
    except ValueError:
        return None


def sort_key(text):
    # Numbers in numeric order, then names in alphabetical order.
    v = number(text)
    return (0, v, "") if v is not None else (1, 0.0, text)


def combine(values, how):
    if how == "sum":
        return sum(values)
    if how == "min":
        return min(values)
    if how == "max":
        return max(values)
    return sum(values) / len(values)


def read_rows(args):
    with open(args.csv, newline="") as f:
        reader = csv.DictReader(f)
        columns = reader.fieldnames or []
        rows = list(reader)
    needed = [args.x, args.y] + args.series + ([args.value] if args.value else [])
    for w in args.where:
        if "=" not in w:
            sys.exit(f"plot_sweep.py: --where {w}: expected COL=VALUE")
        needed.append(w.split("=", 1)[0])
    for col in needed:
        if col not in columns:
            sys.exit(f"plot_sweep.py: {args.csv}: no column '{col}'")
    if args.row != "all":
        rows = [r for r in rows if r.get("row") == args.row]
    for w in args.where:
        col, val = w.split("=", 1)
        rows = [r for r in rows if r[col] == val]
    if "error" in columns:
        rows = [r for r in rows if not r["error"]]
    if not rows:
        sys.exit("plot_sweep.py: no rows left to plot (check --row and --where)")
    return rows


def line_plot(args, rows):
    points = {}  # series -> x -> [y]
    for r in rows:
        y = number(r[args.y])
        if y is None:
            continue
        s = tuple(r[c] for c in args.series)
        points.setdefault(s, {}).setdefault(r[args.x], []).append(y)
    fig, ax = plt.subplots(figsize=(args.width, args.height), dpi=args.dpi)
    numeric_x = all(number(x) is not None for s in points.values() for x in s)
    for s in sorted(points, key=lambda t: [sort_key(v) for v in t]):
        xs = sorted(points[s], key=sort_key)
        ys = [combine(points[s][x], args.agg) for x in xs]
        # "set.tiling.width" reads as "tiling.width" in the legend.
        label = ", ".join(f"{c[4:] if c.startswith('set.') else c}={v}" for c, v in zip(args.series, s)) or None
        ax.plot([number(x) for x in xs] if numeric_x else xs, ys, marker="o", label=label)
    if numeric_x and args.logx:
        ax.set_xscale("log", base=2)
    if numeric_x:
        ticks = sorted({number(x) for s in points.values() for x in s})
        ax.set_xticks(ticks)
        ax.set_xticklabels([f"{t:g}" for t in ticks])
    ax.set_xlabel(args.x)
    ax.set_ylabel(args.y)
    ax.grid(True, alpha=0.3)
    if args.series:
        ax.legend(fontsize="small")
    return fig, ax


def heatmap(args, rows):
    cells = {}
    for r in rows:
        v = number(r[args.value])
        if v is not None:
            cells.setdefault((r[args.x], r[args.y]), []).append(v)
    xs = sorted({k[0] for k in cells}, key=sort_key)
    ys = sorted({k[1] for k in cells}, key=sort_key)
    grid = [[combine(cells[(x, y)], args.agg) if (x, y) in cells else float("nan") for x in xs] for y in ys]
    fig, ax = plt.subplots(figsize=(args.width, args.height), dpi=args.dpi)
    image = ax.imshow(grid, origin="lower", cmap="viridis", aspect="auto")
    fig.colorbar(image, ax=ax, label=args.value)
    ax.set_xticks(range(len(xs)))
    ax.set_xticklabels(xs)
    ax.set_yticks(range(len(ys)))
    ax.set_yticklabels(ys)
    finite = [v for row in grid for v in row if v == v]
    middle = (min(finite) + max(finite)) / 2 if finite else 0
    for j, row in enumerate(grid):
        for i, v in enumerate(row):
            if v == v:
                ax.text(i, j, f"{v:.4g}", ha="center", va="center", fontsize="small",
                        color="black" if v > middle else "white")
    ax.set_xlabel(args.x)
    ax.set_ylabel(args.y)
    return fig, ax


def main():
    p = argparse.ArgumentParser(description="Plot a tbdrsim sweep's results.csv")
    p.add_argument("csv", help="results.csv of `tbdrsim sweep`")
    p.add_argument("--kind", choices=["line", "heatmap"], default="line")
    p.add_argument("--x", required=True, help="column on the x axis (e.g. set.tiling.width)")
    p.add_argument("--y", required=True, help="line: the plotted column; heatmap: the column on the y axis")
    p.add_argument("--series", action="append", default=[], metavar="COL",
                   help="line: one line per value of this column (repeatable: per combination)")
    p.add_argument("--value", help="heatmap: the column shown in the cells")
    p.add_argument("--row", choices=["total", "pass", "all"], default="total", help="which rows (default: total)")
    p.add_argument("--where", action="append", default=[], metavar="COL=VALUE", help="keep rows with COL == VALUE")
    p.add_argument("--agg", choices=["mean", "sum", "min", "max"], default="mean",
                   help="combines rows that fall on one point (default: mean)")
    p.add_argument("--logx", action="store_true", help="line: logarithmic x axis (base 2)")
    p.add_argument("--title")
    p.add_argument("--width", type=float, default=6.4, help="inches")
    p.add_argument("--height", type=float, default=4.0, help="inches")
    p.add_argument("--dpi", type=int, default=100)
    p.add_argument("-o", "--output", required=True, help="PNG file")
    args = p.parse_args()
    if args.kind == "heatmap" and not args.value:
        p.error("--kind heatmap needs --value")
    rows = read_rows(args)
    fig, ax = heatmap(args, rows) if args.kind == "heatmap" else line_plot(args, rows)
    ax.set_title(args.title or os.path.basename(os.path.dirname(os.path.abspath(args.csv))))
    fig.tight_layout()
    fig.savefig(args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
