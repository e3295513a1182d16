//! ATA commands through SCSI ATA PASS-THROUGH (16): identify, SMART, security erase,
//! sanitize.

pub mod identify;
pub mod passthru;
pub mod sanitize;
pub mod security;
pub mod smart;

pub use identify::{identify_device, IdentifyDevice};
pub use passthru::{decode_sense, AtaRegisters, Sense};
pub use sanitize::{AtaSanitize, AtaSanitizeStatus};
pub use security::security_erase;
pub use smart::{smart_data, SmartData};
