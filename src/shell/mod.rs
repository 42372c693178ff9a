//! The suite's one I/O shell: the services every program shares.

pub mod clock;
pub mod datafile;
pub mod exit;
pub mod explain_files;
pub mod jobs;
pub mod lock;
pub mod luxi;
pub mod mond;
pub mod plan;
pub mod rapi;
pub mod replies;
pub mod source;
