#!/bin/bash
# io_bench --laz on a machine without network or pip (the GPU machine): laspy, lazrs and laszip
# come as wheels (for that machine's Python), unpacked onto PYTHONPATH; numpy is the machine's.
#   laz_device.sh IO_BENCH WHEELS LAZ_DIR [POINTS] [RUNS] [SURVEYS]
# runs io_bench on the .laz files of LAZ_DIR and on generated surveys of POINTS points (default
# 20 M) kept in SURVEYS (default /tmp/pr_laz_bench), best of RUNS rounds (default 3).
# Packing it here (wheels for Python 3.12, the LAZ files of tests/data, io_bench and its libraries):
#   pip download --only-binary=:all: --python-version 3.12 --platform manylinux2014_x86_64 \
#     --platform manylinux_2_28_x86_64 --no-deps laspy==2.7.0 lazrs==0.8.2 laszip==0.3.0 -d K/wheels
#   mkdir -p K/laz; cp tests/data/laz/*.laz K/laz/; cp bench/io/laz_bench.py bench/io/laz_device.sh K/
#   bench/bundle.sh K build/bin/io_bench
set -euo pipefail
bench=$1 wheels=$2 laz=$3 points=${4:-20000000} runs=${5:-3} surveys=${6:-/tmp/pr_laz_bench}
site=$(mktemp -d)
for w in "$wheels"/*.whl; do python3 -m zipfile -e "$w" "$site"; done
export PYTHONPATH=$site${PYTHONPATH:+:$PYTHONPATH}
python3 -c 'import laspy, lazrs, laszip, numpy; print("laspy", laspy.__version__, "numpy", numpy.__version__)'
script=$(dirname "$0")/laz_bench.py
"$bench" --laz "$(command -v python3)" --script "$script" --generate "$surveys" --points "$points" \
  --runs "$runs" "$laz"
