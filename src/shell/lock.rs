//! One plan at a time on a cluster: a program that carries out a plan
//! with `-X` (or repairs) holds an exclusive lock on a file of
//! `/run/lock` named after the cluster's Luxi socket, from before it
//! reads the cluster to its end. A second such program on the same
//! cluster refuses to start, naming the first, rather than plan on a
//! cluster the first is changing. The kernel releases the lock however
//! the holder ends (`kill -9` too); the file itself stays, and names the
//! last holder.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The lock, held until dropped.
#[derive(Debug)]
pub struct ClusterLock {
    _file: File,
}

/// The lock file of the cluster behind `socket`: in `/run/lock` (the
/// temporary directory where there is none), its name the socket's path
/// with every other character than letters, digits, `-` and `.` as `_`.
pub fn lock_path(socket: &str) -> PathBuf {
    let run_lock = Path::new("/run/lock");
    let dir = if run_lock.is_dir() {
        run_lock.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    let name = crate::shell::explain_files::file_name_part(socket);
    dir.join(format!("hailstone-exec{name}.lock"))
}

/// Takes the lock of the cluster behind `socket` for `program`.
///
/// # Errors
///
/// The message (`Error: PROGRAM: ...`, with its newline) when another
/// program holds the lock (naming it and its process) or the lock file
/// cannot be opened or locked.
pub fn lock_cluster(program: &str, socket: &str) -> Result<ClusterLock, String> {
    let path = lock_path(socket);
    let shown = path.display();
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|e| format!("Error: {program}: cannot open the lock file {shown}: {e}\n"))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            // The name its holder wrote when it took the lock (a program
            // other than hailstone's writes none).
            let holder = match holder.trim() {
                "" => String::new(),
                named => format!(", taken by {named}"),
            };
            return Err(format!(
                "Error: {program}: another program is carrying out a plan on the cluster of \
                 {socket} (lock {shown}{holder}); run again when it has finished\n"
            ));
        }
        Err(TryLockError::Error(e)) => {
            return Err(format!("Error: {program}: cannot lock {shown}: {e}\n"));
        }
    }
    // Who holds it, for the message of the next one.
    let _ = file.set_len(0);
    let _ = writeln!(file, "{program} (process {})", std::process::id());
    Ok(ClusterLock { _file: file })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_until_the_first_lets_go() {
        let socket = format!("/tmp/hailstone-lock-test-{}/socket", std::process::id());
        let first = lock_cluster("hailstone-balance", &socket).unwrap();
        let second = lock_cluster("hailstone-squeeze", &socket).unwrap_err();
        assert!(
            second.starts_with("Error: hailstone-squeeze: another program is carrying out")
                && second.contains(", taken by hailstone-balance (process ")
                && second.contains(&socket),
            "{second}"
        );
        drop(first);
        let third = lock_cluster("hailstone-squeeze", &socket).unwrap();
        // Another cluster is another lock.
        let other = lock_cluster("hailstone-balance", &format!("{socket}2")).unwrap();
        drop((third, other));
        let _ = std::fs::remove_file(lock_path(&socket));
        let _ = std::fs::remove_file(lock_path(&format!("{socket}2")));
    }
}
