//! Where a target's writes land, resolved past the names that reach it: a file by its inode
//! (however linked), a block device by its device number (a partition within its disk, a
//! loop device with the file behind it), an NVMe namespace by its block device whichever of
//! its two devices names it. Two targets that share storage are one drive.

use std::fmt;
use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

use crate::passthrough;
use crate::sysfs::BlockNode;

/// The storage a target writes.
#[derive(Clone, Debug)]
pub struct Footprint {
    place: Place,
}

#[derive(Clone, Debug)]
enum Place {
    /// A regular file.
    File(FileId),
    /// A block device: the node named (a partition or a whole disk), its whole disk, and
    /// the file behind it when the disk is a loop device.
    Block {
        node: BlockNode,
        disk: BlockNode,
        backing: Option<FileId>,
    },
    /// Nothing to resolve: a drive of its own (a simulated one), or a path with nothing
    /// there yet (a file to be created), absolute and its links followed.
    Name(String),
}

/// A regular file by its device and inode; the path is for messages.
#[derive(Clone, Debug)]
struct FileId {
    path: PathBuf,
    dev: u64,
    ino: u64,
}

impl PartialEq for FileId {
    fn eq(&self, other: &FileId) -> bool {
        (self.dev, self.ino) == (other.dev, other.ino)
    }
}

fn same_node(a: &BlockNode, b: &BlockNode) -> bool {
    (a.major, a.minor) == (b.major, b.minor)
}

fn dev_path(node: &BlockNode) -> String {
    format!("/dev/{}", node.name)
}

impl Footprint {
    /// A target with no storage of this machine's: a simulated drive, by its spec.
    pub fn own(spec: &str) -> Footprint {
        Footprint {
            place: Place::Name(spec.to_string()),
        }
    }

    /// What a path writes: a regular file, a block device, or an NVMe namespace through
    /// either of its devices.
    pub fn of_path(path: &Path) -> Footprint {
        let place = match fs::metadata(path) {
            Ok(m) if m.file_type().is_block_device() => block(m.rdev()),
            Ok(m) if m.file_type().is_char_device() => {
                let real = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
                match passthrough::block_of_generic(&real) {
                    Some(block) => return Footprint::of_path(&block),
                    None => None,
                }
            }
            Ok(m) => Some(Place::File(FileId {
                path: fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
                dev: m.dev(),
                ino: m.ino(),
            })),
            // Nothing there: a generic device's name still names its namespace.
            Err(_) => match passthrough::block_of_generic(path) {
                Some(block) => return Footprint::of_path(&block),
                None => None,
            },
        };
        Footprint {
            place: place.unwrap_or_else(|| Place::Name(absolute(path).display().to_string())),
        }
    }

    /// Whether both are the same storage, all of it: one file, device or namespace by two
    /// names, or a loop device and the file behind it.
    pub fn same(&self, other: &Footprint) -> bool {
        use Place::*;
        match (&self.place, &other.place) {
            (File(a), File(b)) => a == b,
            (
                Block {
                    node: a, disk: da, ..
                },
                Block {
                    node: b, disk: db, ..
                },
            ) => same_node(a, b) && same_node(da, db),
            (
                File(f),
                Block {
                    node,
                    disk,
                    backing: Some(b),
                },
            )
            | (
                Block {
                    node,
                    disk,
                    backing: Some(b),
                },
                File(f),
            ) => same_node(node, disk) && f == b,
            (Name(a), Name(b)) => a == b,
            _ => false,
        }
    }

    /// How two targets would write the same storage, if they would: [`Footprint::same`],
    /// a partition and its disk, a loop device's partition and its file, or two loop devices
    /// over one file.
    pub fn shared_with(&self, other: &Footprint) -> Option<String> {
        use Place::*;
        match (&self.place, &other.place) {
            (File(a), File(b)) if a == b => Some(format!("both are the file {}", a.path.display())),
            (Name(a), Name(b)) if a == b => Some(format!("both are {a}")),
            (File(f), Block { disk, backing, .. }) | (Block { disk, backing, .. }, File(f))
                if backing.as_ref() == Some(f) =>
            {
                Some(format!(
                    "{} is a loop device over {}",
                    dev_path(disk),
                    f.path.display()
                ))
            }
            (
                Block {
                    node: a,
                    disk: da,
                    backing: ba,
                },
                Block {
                    node: b,
                    disk: db,
                    backing: bb,
                },
            ) => {
                if same_node(da, db) {
                    // Two partitions of one disk are apart.
                    if same_node(a, b) {
                        Some(format!("both are {}", dev_path(a)))
                    } else if same_node(a, da) {
                        Some(format!("{} is a partition of {}", dev_path(b), dev_path(a)))
                    } else if same_node(b, db) {
                        Some(format!("{} is a partition of {}", dev_path(a), dev_path(b)))
                    } else {
                        None
                    }
                } else {
                    let file = ba.as_ref().filter(|f| Some(*f) == bb.as_ref())?;
                    Some(format!(
                        "{} and {} are loop devices over one file, {}",
                        dev_path(da),
                        dev_path(db),
                        file.path.display()
                    ))
                }
            }
            _ => None,
        }
    }
}

impl fmt::Display for Footprint {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match &self.place {
            Place::File(file) => write!(f, "{}", file.path.display()),
            Place::Block { node, .. } => write!(f, "{}", dev_path(node)),
            Place::Name(name) => write!(f, "{name}"),
        }
    }
}

/// The block device of device number `rdev`, with the file behind it if it is a loop device.
fn block(rdev: u64) -> Option<Place> {
    let node = BlockNode::of_dev_t(libc::major(rdev), libc::minor(rdev)).ok()?;
    let disk = node.whole_disk();
    let backing = disk
        .attr("loop/backing_file")
        .and_then(|path| file_id(Path::new(&path)));
    Some(Place::Block {
        node,
        disk,
        backing,
    })
}

fn file_id(path: &Path) -> Option<FileId> {
    let m = fs::metadata(path).ok().filter(|m| m.is_file())?;
    Some(FileId {
        path: fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
        dev: m.dev(),
        ino: m.ino(),
    })
}

/// The loop devices whose backing file is `file` (the same inode, by whatever path the loop
/// driver recorded).
pub fn loop_devices_over(file: &Path) -> Vec<PathBuf> {
    let Some(file) = file_id(file) else {
        return Vec::new();
    };
    let Ok(entries) = fs::read_dir("/sys/block") else {
        return Vec::new();
    };
    let mut devices: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("loop"))
        .filter(|e| {
            fs::read_to_string(e.path().join("loop/backing_file"))
                .ok()
                .and_then(|back| file_id(Path::new(back.trim())))
                .is_some_and(|back| back == file)
        })
        .map(|e| Path::new("/dev").join(e.file_name()))
        .collect();
    devices.sort();
    devices
}

/// `path` made absolute with its links followed, as far as it exists: where a file that is
/// not there yet would be created.
fn absolute(path: &Path) -> PathBuf {
    let mut path = path.to_path_buf();
    // A dangling link names where the file would be made; 40 is the kernel's limit.
    for _ in 0..40 {
        match fs::read_link(&path) {
            Ok(to) => path = parent(&path).join(to),
            Err(_) => break,
        }
    }
    match (fs::canonicalize(parent(&path)), path.file_name()) {
        (Ok(dir), Some(name)) => dir.join(name),
        _ => path,
    }
}

/// The directory holding `path` (`.` for a bare name).
fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, minor: u32) -> BlockNode {
        BlockNode {
            name: name.into(),
            sys: PathBuf::from(format!("/sys/class/block/{name}")),
            major: 8,
            minor,
        }
    }

    fn block(name: &str, minor: u32, disk: (&str, u32), backing: Option<FileId>) -> Footprint {
        Footprint {
            place: Place::Block {
                node: node(name, minor),
                disk: node(disk.0, disk.1),
                backing,
            },
        }
    }

    fn file(path: &str, ino: u64) -> FileId {
        FileId {
            path: path.into(),
            dev: 1,
            ino,
        }
    }

    #[test]
    fn a_partition_shares_its_disk_but_not_its_sibling() {
        let sda = block("sda", 0, ("sda", 0), None);
        let sda1 = block("sda1", 1, ("sda", 0), None);
        let sda2 = block("sda2", 2, ("sda", 0), None);
        let sdb = block("sdb", 16, ("sdb", 16), None);
        let why = sda.shared_with(&sda1).unwrap();
        assert_eq!(why, "/dev/sda1 is a partition of /dev/sda");
        assert_eq!(sda1.shared_with(&sda).unwrap(), why);
        assert!(sda1.shared_with(&sda2).is_none());
        assert!(sda.shared_with(&sdb).is_none());
        assert_eq!(sda.shared_with(&sda).unwrap(), "both are /dev/sda");
        assert!(!sda.same(&sda1), "a partition is not its disk");
    }

    #[test]
    fn a_loop_device_is_the_file_behind_it() {
        let img = Footprint {
            place: Place::File(file("/tmp/a.img", 7)),
        };
        let loop0 = block("loop0", 0, ("loop0", 0), Some(file("/tmp/a.img", 7)));
        let loop0p1 = block("loop0p1", 1, ("loop0", 0), Some(file("/tmp/a.img", 7)));
        let loop1 = block("loop1", 32, ("loop1", 32), Some(file("/tmp/a.img", 7)));
        let other = block("loop2", 64, ("loop2", 64), Some(file("/tmp/b.img", 8)));
        assert!(img.same(&loop0) && loop0.same(&img));
        assert!(!img.same(&loop0p1), "a partition is part of the file");
        assert_eq!(
            img.shared_with(&loop0p1).unwrap(),
            "/dev/loop0 is a loop device over /tmp/a.img"
        );
        assert_eq!(
            loop0.shared_with(&loop1).unwrap(),
            "/dev/loop0 and /dev/loop1 are loop devices over one file, /tmp/a.img"
        );
        assert!(img.shared_with(&other).is_none());
    }

    #[test]
    fn links_to_a_file_are_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.img");
        let b = dir.path().join("b.img");
        std::os::unix::fs::symlink(&a, &b).unwrap();
        // Not there yet: the link names where it would be made.
        assert!(Footprint::of_path(&a).same(&Footprint::of_path(&b)));
        fs::write(&a, b"x").unwrap();
        let (fa, fb) = (Footprint::of_path(&a), Footprint::of_path(&b));
        assert!(fa.same(&fb));
        assert_eq!(
            fa.shared_with(&fb).unwrap(),
            format!(
                "both are the file {}",
                fs::canonicalize(&a).unwrap().display()
            )
        );
        let c = dir.path().join("c.img");
        fs::write(&c, b"x").unwrap();
        assert!(Footprint::of_path(&c).shared_with(&fa).is_none());
    }
}
