#!/usr/bin/env bash
# ssdlab's NVMe passthrough (io_uring-cmd) and block (io_uring) backends against fio's
# io_uring_cmd and io_uring engines, on QEMU's emulated NVMe controller in the tests' guest
# (TCG): 4 KiB random reads at QD32, rounds alternating. Prints IOPS and the ratios.
#
#   sudo benches/guest-passthrough.sh [ROUNDS=3] [SECONDS=5]
#
# Needs what the emulated-drive tests need (qemu-system-x86, busybox-static, binutils) and fio.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_ROUNDS=${1:-3} BENCH_SECONDS=${2:-5} cargo test --release -p ssdlab --test emulated_drives \
  -- --ignored --nocapture bench_passthrough_against_fio 2>&1 | grep -v '^test \|^running\|^$'
