#!/usr/bin/env bash
# Create model/.venv with the pinned packages (PyPI only). Idempotent.
set -euo pipefail
cd "$(dirname "$0")"
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/pip install -q -r requirements.txt
