#!/usr/bin/env bash
# `ssdlab sim serve` against `ssdlab run` (#28): in the tests' guest (QEMU TCG, Debian's
# backports kernel for ublk_drv), fio drives /dev/ublkb0 of sim:840-evo-250 and
# sim:dc-s3700-200 (capacity reduced to CAPACITY so the served data fits in the guest's
# memory), then `ssdlab run custom` measures the same presets:
#
#   4 KiB random writes, QD32, SECONDS   fio --rw=randwrite --bs=4k --iodepth=32 --time_based
#   128 KiB sequential over the drive    fio --rw=write --bs=128k --iodepth=32 --size=100%
#                                            --write_bw_log=bw --log_avg_msec=1000
#   both with --ioengine=io_uring --direct=1, each on a freshly served drive.
#
# The same fio jobs on a file in the guest's tmpfs give the ceiling the emulation leaves.
# Prints the table, each served drive's summary (pacing error) and the sequential bandwidth
# logs (the 840 EVO's TurboWrite drop).
#
# The served drives run SLOWDOWN times slower than the models (`sim serve --slowdown`;
# SEQ_SLOWDOWN for the sequential writes), so that the guest, slower than the models under
# TCG, keeps up: fio runs SECONDS x SLOWDOWN, and its rates times SLOWDOWN are the drive's (1
# serves in real time).
#
#   benches/serve-vs-run.sh [SECONDS=5] [CAPACITY=4GiB] [SLOWDOWN=50] [SEQ_SLOWDOWN=25]
#
# A release build: the server's simulator runs in the guest, where a debug build's would set
# the pace. Needs what the guest tests need (qemu-system-x86, busybox-static, binutils, xz-utils),
# fio, and libclang (libclang-dev) for the ublk feature; the guest takes 10 GiB of memory.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_SECONDS=${1:-5} BENCH_CAPACITY=${2:-4GiB} BENCH_SLOWDOWN=${3:-50} \
  BENCH_SEQ_SLOWDOWN=${4:-25} cargo test --release -p ssdlab --features ublk --test cli \
  -- --ignored --nocapture bench_serve_against_run 2>&1 | grep -v '^test \|^running\|^$'
