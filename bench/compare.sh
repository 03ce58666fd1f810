#!/usr/bin/env bash
# bench/compare.sh -- fgrun and its peers side by side; options: bench/compare.sh -h, bench/README.md.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ -x /usr/bin/time ] || { echo "compare.sh: needs GNU time (apt-get install time)" >&2; exit 1; }
exec "${PYTHON:-python3}" "$here/compare.py" "$@"
