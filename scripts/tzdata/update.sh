#!/usr/bin/env bash
# Rebuilds the time-zone tables the engine uses (vendor/chrono-tz) from an IANA tz release.
#
# chrono-tz ships tables compiled from the tz database of its own release date, and crates.io's
# newest (0.10.4) has 2025b; zones change their rules several times a year. So the workspace
# patches chrono-tz with this copy, whose tables are regenerated from the release PyPI's `tzdata`
# package carries (its tzdata.zi, the compact zic source), by the generator chrono-tz 0.10.4 was
# built with. From 2025b's tzdata.zi this pipeline gives chrono-tz 0.10.4's tables byte for byte.
#
# Usage: scripts/tzdata/update.sh 2026.6   (the PyPI tzdata version; 2026.6 is IANA 2026f)
# Needs python3 with pip, cargo, and the registries (PyPI, crates.io). Run it from the repository.
set -euo pipefail
version="${1:?usage: scripts/tzdata/update.sh <PyPI tzdata version>}"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 -m pip download "tzdata==$version" --no-deps --only-binary=:all: -d "$work" >/dev/null
python3 - "$work" <<'PY'
import glob, sys, zipfile
work = sys.argv[1]
wheel = glob.glob(f"{work}/tzdata-*.whl")[0]
open(f"{work}/tzdata.zi", "wb").write(zipfile.ZipFile(wheel).read("tzdata/zoneinfo/tzdata.zi"))
PY
release="$(head -1 "$work/tzdata.zi" | sed -n 's/^# version //p')"
[ -n "$release" ] || { echo "no '# version' line in tzdata.zi" >&2; exit 1; }

# chrono-tz-build reads tz/{africa,...,southamerica} and the release from tz/NEWS: the whole
# source goes into the first file (rules are global; each zone stays with its continuation lines).
mkdir -p "$work/src/tz"
python3 "$here/expand_zi.py" "$work/tzdata.zi" "$work/src/tz/africa"
for f in antarctica asia australasia backward etcetera europe northamerica southamerica; do : >"$work/src/tz/$f"; done
echo "Release $release - from PyPI tzdata $version" >"$work/src/tz/NEWS"

CARGO_TARGET_DIR="$work/target" cargo run --quiet --release --manifest-path "$here/gen/Cargo.toml" -- "$work/src" "$root/vendor/chrono-tz/src/prebuilt"
cp "$work/tzdata.zi" "$root/vendor/chrono-tz/tz/tzdata.zi"
echo "vendor/chrono-tz now holds IANA tz $release"
