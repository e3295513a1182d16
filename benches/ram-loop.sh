# Sourced by the benchmarks that race ssdlab against fio: builds ssdlab (`$bin`), makes a
# scratch directory (`$work`) and a 1 GiB RAM-backed loop device (`$dev`, direct-io), and
# removes all three on exit (KEEP=1 keeps `$work`).
#
#   . "$(dirname "$0")/ram-loop.sh" NAME
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cargo build --release --quiet --manifest-path "$here/Cargo.toml"
bin="$here/target/release/ssdlab"
work=$(mktemp -d)
img=/dev/shm/ssdlab-$1.img
truncate -s 1G "$img"
dev=$(losetup --find --show --direct-io=on "$img")
cleanup() {
  losetup -d "$dev" 2>/dev/null || true
  rm -f "$img"
  if [ -n "${KEEP:-}" ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
