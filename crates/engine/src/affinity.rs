//! The cores a process may run on, and pinning a thread to one of them (a submitting thread
//! that stays on its core keeps its ring and buffers in that core's cache).

/// The CPUs the calling thread may run on, in order.
pub(crate) fn cores() -> Vec<usize> {
    allowed().map_or_else(Vec::new, |set| {
        (0..libc::CPU_SETSIZE as usize)
            // SAFETY: CPU_ISSET reads a set we own, at an index below its size.
            .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
            .collect()
    })
}

fn allowed() -> Option<libc::cpu_set_t> {
    // SAFETY: sched_getaffinity fills the set we hand it, of the size we give.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) } == 0;
    ok.then_some(set)
}

/// The calling thread pinned to `core` until this is dropped, when it may run where it
/// could before.
pub(crate) struct Pinned {
    before: Option<libc::cpu_set_t>,
}

/// Pin the calling thread to `core` (a pin the kernel refuses leaves it where it was).
pub(crate) fn pin(core: usize) -> Pinned {
    let before = allowed();
    // SAFETY: the set is ours; sched_setaffinity only reads it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(core, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set);
    }
    Pinned { before }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        if let Some(set) = &self.before {
            // SAFETY: as in `pin`.
            unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(set), set) };
        }
    }
}
