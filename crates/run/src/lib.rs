//! One run of a test, owned from a typed [`Request`] to its [`Outcome`]: the flags every face
//! shares ([`flags`]), the request they make, and the one lifecycle ([`execute`]) that opens
//! the target, makes the results directory and run id, runs the test, writes the results
//! and their report, stores the run in the Bench and decides the exit status. A
//! methodology's review of one or more drives is owned the same way: [`suite_flags`] make a
//! [`Review`], [`review()`] carries it out. The CLI and Python only translate (command-line
//! flags or keyword arguments, [`keywords`]) and show.

mod error;
pub mod fio_job;
pub mod flags;
pub mod keywords;
mod lifecycle;
mod outcome;
pub mod output_paths;
pub mod replay;
mod request;
pub mod results;
mod review;
pub mod suggest;
pub mod suite_flags;
pub mod target_flags;

pub use error::{Kept, RunError};
pub use lifecycle::{execute, execute_on, Face};
pub use outcome::{Ending, Outcome};
pub use request::{find_test, Output, Request, ResultsDir, Store, TestWork, Work};
pub use review::{
    placements, review, Review, ReviewDrive, ReviewEnding, ReviewFace, Reviewed, Scope,
    StepsProgress,
};
