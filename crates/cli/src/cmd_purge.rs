//! `ssdlab purge`: make a whole target clean the way the methodology's clean-drive tests do
//! (`--purge auto` by default: NVMe Sanitize, else Format NVM, else ATA SANITIZE or SECURITY
//! ERASE, else discard), and say what was done.

use std::process::ExitCode;

use crate::progress::Bar;
use crate::target_args::TargetArgs;
use suite::context::Context;

pub fn purge(a: &TargetArgs) -> anyhow::Result<ExitCode> {
    a.precondition.check_used_by("`purge`", false)?;
    let (mut dev, _created) = a.open(&a.target, true)?;
    let stop = crate::cmd_run::stop_flag()?;
    let mut bar = Bar::new(a.quiet, &stop);
    let mut ctx = Context::new(&stop, &mut bar);
    ctx.purge = a.purge;
    let capacity = dev.geometry().capacity_bytes;
    let phase = suite::purge(&mut ctx, dev.as_mut(), 0, capacity);
    drop(ctx);
    bar.close();
    let method = phase.method.as_deref().unwrap_or("none");
    if phase.complete {
        println!("purged {}: {method}", a.target);
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("{} was not purged: {}", a.target, phase.description);
        Ok(ExitCode::FAILURE)
    }
}
