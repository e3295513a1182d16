//! NVMe admin commands: identify, SMART / Health, Format NVM, Sanitize.

pub mod identify;
pub mod passthru;
pub mod sanitize;
pub mod smart;

pub use identify::{
    identify_controller, identify_namespace, IdentifyController, IdentifyNamespace,
};
pub use passthru::{namespace_id, NvmeStatus};
pub use sanitize::{
    format_nvm, sanitize, sanitize_status, wait_sanitize, FormatErase, SanitizeAction,
    SanitizeStatus,
};
pub use smart::{smart_log, SmartLog};
