//! On-disk signatures, probed the way libblkid's superblock and partition probers find them:
//! a magic at a fixed offset from the start of the device, or from its end (md 0.90 and 1.0,
//! GPT's backup header, ZFS's last two labels, firmware RAID). The offsets and magics are
//! those of util-linux's libblkid sources (libblkid/src/superblocks/*.c and
//! libblkid/src/partitions/gpt.c, dos.c); implemented here:
//!
//! - linux_raid.c: md 0.90 (both byte orders) and 1.0 at the end, 1.1 at 0, 1.2 at 4 KiB
//! - gpt.c: the primary header at LBA 1 and the backup at the last LBA, 512 B and 4 KiB sectors
//! - dos.c: the MBR boot signature (reported only when nothing else is)
//! - lvm.c: the LVM2 label in any of sectors 0 to 3
//! - luks.c: LUKS1/2 and LUKS2's secondary header
//! - zfs.c: uberblocks in any of the four labels (two at each end)
//! - ext.c, xfs.c, btrfs.c, f2fs.c, ntfs.c, vfat.c, iso9660.c, swap.c, bcache.c
//! - isw_raid.c, ddf_raid.c: Intel and SNIA DDF firmware RAID, at the end
//!
//! The caller reads the first and last [`EDGE`] bytes of the device; every offset here falls
//! in one of them.

/// How much of each end of a device the probes look at.
pub const EDGE: u64 = 1 << 20;

/// Where a magic lies.
#[derive(Clone, Copy, Debug)]
enum At {
    /// Bytes from the start.
    Start(u64),
    /// `back` bytes before the device's size rounded down to `align`.
    End { align: u64, back: u64 },
}

impl At {
    fn offset(self, size: u64) -> Option<u64> {
        match self {
            At::Start(off) => Some(off),
            At::End { align, back } => (size / align * align).checked_sub(back),
        }
    }
}

struct Signature {
    name: &'static str,
    at: At,
    magic: &'static [u8],
}

const fn sig(name: &'static str, at: At, magic: &'static [u8]) -> Signature {
    Signature { name, at, magic }
}

const KIB: u64 = 1024;
const MD_MAGIC_LE: &[u8] = &[0xfc, 0x4e, 0x2b, 0xa9];
const MD_MAGIC_BE: &[u8] = &[0xa9, 0x2b, 0x4e, 0xfc];
const BCACHE_MAGIC: &[u8] = &[
    0xc6, 0x85, 0x73, 0xf6, 0x4e, 0x1a, 0x45, 0xca, 0x82, 0x65, 0xf5, 0x7f, 0x48, 0xba, 0x6d, 0x81,
];

const SIGNATURES: &[Signature] = &[
    sig("GPT partition table", At::Start(512), b"EFI PART"),
    sig(
        "GPT partition table (4K sectors)",
        At::Start(4096),
        b"EFI PART",
    ),
    sig(
        "GPT backup header",
        At::End {
            align: 512,
            back: 512,
        },
        b"EFI PART",
    ),
    sig(
        "GPT backup header (4K sectors)",
        At::End {
            align: 4096,
            back: 4096,
        },
        b"EFI PART",
    ),
    sig(
        "Linux md RAID member (0.90)",
        At::End {
            align: 64 * KIB,
            back: 64 * KIB,
        },
        MD_MAGIC_LE,
    ),
    sig(
        "Linux md RAID member (0.90, big-endian)",
        At::End {
            align: 64 * KIB,
            back: 64 * KIB,
        },
        MD_MAGIC_BE,
    ),
    sig(
        "Linux md RAID member (1.0)",
        At::End {
            align: 4 * KIB,
            back: 8 * KIB,
        },
        MD_MAGIC_LE,
    ),
    sig("Linux md RAID member (1.1)", At::Start(0), MD_MAGIC_LE),
    sig("Linux md RAID member (1.2)", At::Start(4096), MD_MAGIC_LE),
    sig(
        "Intel firmware RAID member",
        At::End {
            align: 512,
            back: 1024,
        },
        b"Intel Raid ISM Cfg Sig. ",
    ),
    sig(
        "DDF firmware RAID member",
        At::End {
            align: 512,
            back: 512,
        },
        &[0xde, 0x11, 0xde, 0x11],
    ),
    sig("LVM2 physical volume", At::Start(24), b"LVM2 001"),
    sig("LVM2 physical volume", At::Start(512 + 24), b"LVM2 001"),
    sig("LVM2 physical volume", At::Start(1024 + 24), b"LVM2 001"),
    sig("LVM2 physical volume", At::Start(1536 + 24), b"LVM2 001"),
    sig("LUKS encrypted volume", At::Start(0), b"LUKS\xba\xbe"),
    sig(
        "LUKS2 encrypted volume",
        At::Start(16 * KIB),
        b"SKUL\xba\xbe",
    ),
    sig("ext2/3/4 filesystem", At::Start(1080), &[0x53, 0xEF]),
    sig("XFS filesystem", At::Start(0), b"XFSB"),
    sig("btrfs filesystem", At::Start(65_600), b"_BHRfS_M"),
    sig(
        "F2FS filesystem",
        At::Start(1024),
        &[0x10, 0x20, 0xF5, 0xF2],
    ),
    sig("NTFS filesystem", At::Start(3), b"NTFS    "),
    sig("exFAT filesystem", At::Start(3), b"EXFAT   "),
    sig("FAT32 filesystem", At::Start(82), b"FAT32   "),
    sig("FAT12/16 filesystem", At::Start(54), b"FAT1"),
    sig("ISO 9660 image", At::Start(32_769), b"CD001"),
    sig("swap space", At::Start(4096 - 10), b"SWAPSPACE2"),
    sig("swap space", At::Start(4096 - 10), b"SWAP-SPACE"),
    sig("swap space (8K pages)", At::Start(8192 - 10), b"SWAPSPACE2"),
    sig(
        "swap space (16K pages)",
        At::Start(16_384 - 10),
        b"SWAPSPACE2",
    ),
    sig(
        "swap space (64K pages)",
        At::Start(65_536 - 10),
        b"SWAPSPACE2",
    ),
    sig("bcache device", At::Start(4096 + 24), BCACHE_MAGIC),
];

/// The two ends of a device of `size` bytes: its first `head.len()` bytes and its last
/// `tail.len()`.
pub struct Edges<'a> {
    pub size: u64,
    pub head: &'a [u8],
    pub tail: &'a [u8],
}

impl Edges<'_> {
    /// The `len` bytes at `off`, when one of the ends holds them.
    fn at(&self, off: u64, len: usize) -> Option<&[u8]> {
        let end = off.checked_add(len as u64)?;
        if end > self.size {
            return None;
        }
        if end <= self.head.len() as u64 {
            return self.head.get(off as usize..end as usize);
        }
        let tail_start = self.size - self.tail.len() as u64;
        let from = off.checked_sub(tail_start)? as usize;
        self.tail.get(from..from + len)
    }
}

/// The names of the signatures found at either end, each once.
pub fn probe(edges: &Edges) -> Vec<&'static str> {
    let mut found: Vec<&'static str> = SIGNATURES
        .iter()
        .filter(|s| {
            s.at.offset(edges.size)
                .and_then(|off| edges.at(off, s.magic.len()))
                == Some(s.magic)
        })
        .map(|s| s.name)
        .collect();
    if zfs_label(edges) {
        found.push("ZFS pool member");
    }
    if found.is_empty() && edges.at(510, 2) == Some(&[0x55, 0xAA]) {
        found.push("MBR partition table or boot sector");
    }
    found.dedup();
    found
}

/// Whether any of ZFS's four 256 KiB labels (two at the start, two at the end, the end ones
/// aligned to 256 KiB) holds an uberblock: 128 slots of 1 KiB from 128 KiB into the label,
/// each starting with the magic in either byte order (zfs.c).
fn zfs_label(edges: &Edges) -> bool {
    const LABEL: u64 = 256 * KIB;
    const LE: [u8; 8] = 0x00ba_b10c_u64.to_le_bytes();
    const BE: [u8; 8] = 0x00ba_b10c_u64.to_be_bytes();
    let align = edges.size % LABEL;
    let labels = [
        Some(0),
        Some(LABEL),
        edges.size.checked_sub(2 * LABEL + align),
        edges.size.checked_sub(LABEL + align),
    ];
    labels.into_iter().flatten().any(|label| {
        (0..128).any(|slot| {
            let magic = edges.at(label + 128 * KIB + slot * KIB, 8);
            magic == Some(&LE) || magic == Some(&BE)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A blank device image of `size` bytes with `magic` written at `off`: what the probe
    /// finds in it.
    fn found(size: u64, writes: &[(u64, &[u8])]) -> Vec<&'static str> {
        let mut image = vec![0u8; size as usize];
        for (off, magic) in writes {
            image[*off as usize..*off as usize + magic.len()].copy_from_slice(magic);
        }
        let edge = EDGE.min(size) as usize;
        probe(&Edges {
            size,
            head: &image[..edge],
            tail: &image[image.len() - edge..],
        })
    }

    const SIZE: u64 = 64 << 20;

    #[test]
    fn blank_is_nothing() {
        assert!(found(SIZE, &[]).is_empty());
    }

    #[test]
    fn md_superblocks_at_the_end_and_the_start() {
        // mdadm --metadata=1.0: 8 KiB before the end rounded down to 4 KiB.
        let odd = SIZE + 3000;
        let v10 = (odd / 4096 * 4096) - 8192;
        assert_eq!(
            found(odd, &[(v10, MD_MAGIC_LE)]),
            ["Linux md RAID member (1.0)"]
        );
        // 0.90: 64 KiB before the end rounded down to 64 KiB.
        let v090 = (odd / 65_536 * 65_536) - 65_536;
        assert_eq!(
            found(odd, &[(v090, MD_MAGIC_LE)]),
            ["Linux md RAID member (0.90)"]
        );
        assert_eq!(
            found(SIZE, &[(4096, MD_MAGIC_LE)]),
            ["Linux md RAID member (1.2)"]
        );
    }

    #[test]
    fn gpt_backup_header_alone_is_found() {
        // The primary header wiped (wipefs -o 0x200), the backup left at the last LBA.
        assert_eq!(
            found(SIZE, &[(SIZE - 512, b"EFI PART")]),
            ["GPT backup header"]
        );
    }

    #[test]
    fn zfs_labels_at_either_end() {
        let magic = 0x00ba_b10c_u64.to_le_bytes();
        let size = SIZE + 100 * KIB;
        // L3, in its last uberblock slot.
        let l3 = size - 256 * KIB - size % (256 * KIB);
        assert_eq!(
            found(size, &[(l3 + 128 * KIB + 127 * KIB, &magic)]),
            ["ZFS pool member"]
        );
        assert_eq!(
            found(size, &[(256 * KIB + 128 * KIB, &magic)]),
            ["ZFS pool member"]
        );
    }

    #[test]
    fn filesystems_at_the_start() {
        assert_eq!(
            found(SIZE, &[(1080, &[0x53, 0xEF])]),
            ["ext2/3/4 filesystem"]
        );
        assert_eq!(found(SIZE, &[(536, b"LVM2 001")]), ["LVM2 physical volume"]);
        assert_eq!(
            found(SIZE, &[(510, &[0x55, 0xAA]), (512, b"EFI PART")]),
            ["GPT partition table"]
        );
        assert_eq!(
            found(SIZE, &[(510, &[0x55, 0xAA])]),
            ["MBR partition table or boot sector"]
        );
    }

    #[test]
    fn a_device_smaller_than_the_edges_is_probed_whole() {
        let size = 600 * KIB;
        assert_eq!(
            found(size, &[(size - 512, b"EFI PART")]),
            ["GPT backup header"]
        );
    }
}
