"""Expands a compact tzdata.zi (zic input written by zishrink) into the long zic form that
parse-zoneinfo reads: keywords, month and weekday names, and only/max/min in full."""
import re
import sys

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def unique(prefix: str, names: list[str]) -> str:
    hits = [n for n in names if n.lower().startswith(prefix.lower())]
    if len(hits) != 1:
        raise ValueError(f"ambiguous or unknown abbreviation {prefix!r}")
    return hits[0][:3]


def year(word: str, to_field: bool) -> str:
    if re.fullmatch(r"-?\d+", word):
        return word
    for full in (["only"] if to_field else []) + ["maximum", "minimum"]:
        if full.startswith(word.lower()):
            return {"only": "only", "maximum": "max", "minimum": "min"}[full]
    raise ValueError(f"bad year {word!r}")


def day(word: str) -> str:
    if word.isdigit():
        return word
    if word.startswith("last"):
        return "last" + unique(word[4:], WEEKDAYS)
    m = re.fullmatch(r"([A-Za-z]+)(>=|<=)(\d+)", word)
    if not m:
        raise ValueError(f"bad day {word!r}")
    return unique(m[1], WEEKDAYS) + m[2] + m[3]


def clock(word: str) -> str:
    """A time or offset with its minutes and seconds written in two digits (`0:1` -> `0:01`)."""
    m = re.fullmatch(r"(-?\d+)((?::\d+)*)([wsugz]?)", word)
    if not m:
        return word  # `-`, or a rule name in a zone's RULES column
    parts = [p.zfill(2) for p in m[2].split(":")[1:]]
    return ":".join([m[1], *parts]) + m[3]


def until(fields: list[str]) -> list[str]:
    out = list(fields)
    if len(out) > 0:
        out[0] = year(out[0], False)
    if len(out) > 1:
        out[1] = unique(out[1], MONTHS)
    if len(out) > 2:
        out[2] = day(out[2])
    if len(out) > 3:
        out[3] = clock(out[3])
    return out


def expand(line: str) -> str:
    if line.startswith("#") or not line.strip():
        return line
    f = line.split()
    kw = f[0]
    if kw in ("R", "Rule"):
        # Rule NAME FROM TO - IN ON AT SAVE LETTER/S
        f[0] = "Rule"
        f[2] = year(f[2], False)
        f[3] = year(f[3], True)
        f[5] = unique(f[5], MONTHS)
        f[6] = day(f[6])
        f[7] = clock(f[7])
        f[8] = clock(f[8])
        return "\t".join(f)
    if kw in ("Z", "Zone"):
        # Zone NAME STDOFF RULES FORMAT [UNTIL]
        return "\t".join(["Zone", f[1], clock(f[2]), clock(f[3]), f[4], *until(f[5:])])
    if kw in ("L", "Link"):
        return "\t".join(["Link", f[1], f[2]])
    # A zone's continuation: STDOFF RULES FORMAT [UNTIL]
    return "\t\t\t" + "\t".join([clock(f[0]), clock(f[1]), f[2], *until(f[3:])])


def main() -> None:
    src, dst = sys.argv[1], sys.argv[2]
    with open(src, encoding="utf-8") as fh, open(dst, "w", encoding="utf-8") as out:
        for line in fh:
            # `Factory` comes from the tz source's `factory` file, which chrono-tz leaves out.
            if line.split()[:2] == ["Z", "Factory"]:
                continue
            out.write(expand(line.rstrip("\n")) + "\n")


if __name__ == "__main__":
    main()
