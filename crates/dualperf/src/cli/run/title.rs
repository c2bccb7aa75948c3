//! `-T STR` (iperf3's `--title`): every line the run prints, on standard
//! output and standard error, starts with `STR:  ` as iperf3's do (standard
//! output is left alone when it carries JSON). Both
//! descriptors are redirected into pipes whose reader threads prefix each
//! line and write it to where the descriptor pointed before (a terminal, a
//! file, `--logfile`'s file); dropping the guard restores the descriptors
//! and waits until every line is written.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::thread::JoinHandle;

/// Prefixing in force until dropped.
#[derive(Debug)]
pub(crate) struct Titled {
    /// Per redirected descriptor: its number, the original (duplicated),
    /// and the thread copying prefixed lines to it.
    ends: Vec<(RawFd, OwnedFd, Option<JoinHandle<()>>)>,
}

/// Starts prefixing standard error, and standard output unless it carries
/// JSON (`-J`, `--json -`, `--json-stream`: a prefix would break every
/// parser), with `title`.
///
/// # Errors
/// The OS error of `dup`, `pipe` or `dup2`.
pub(crate) fn prefix_lines(title: &str, json_on_stdout: bool) -> std::io::Result<Titled> {
    let prefix = format!("{title}:  ");
    let mut ends = Vec::new();
    let targets: &[RawFd] = if json_on_stdout {
        &[libc::STDERR_FILENO]
    } else {
        &[libc::STDOUT_FILENO, libc::STDERR_FILENO]
    };
    for &target in targets {
        flush(target);
        let original = duplicate(target)?;
        let mut fds = [0 as RawFd; 2];
        // SAFETY: `fds` has room for the two descriptors pipe2 writes.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: pipe2 just returned these descriptors; each is owned once.
        let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        // SAFETY: dup2 onto a descriptor this process owns.
        if unsafe { libc::dup2(write.as_raw_fd(), target) } < 0 {
            return Err(std::io::Error::last_os_error());
        }
        drop(write);
        let mut sink = File::from(duplicate(original.as_raw_fd())?);
        let prefix = prefix.clone();
        let copier = std::thread::spawn(move || {
            let reader = BufReader::new(File::from(read));
            for line in reader.split(b'\n') {
                let Ok(line) = line else { break };
                let mut out = prefix.as_bytes().to_vec();
                out.extend_from_slice(&line);
                out.push(b'\n');
                if sink.write_all(&out).is_err() {
                    break;
                }
            }
        });
        ends.push((target, original, Some(copier)));
    }
    Ok(Titled { ends })
}

impl Drop for Titled {
    fn drop(&mut self) {
        for (target, original, copier) in &mut self.ends {
            flush(*target);
            // Pointing the descriptor back closes the pipe's last writer:
            // the copier reads to the end, writes the rest, and stops.
            // SAFETY: dup2 of a descriptor this guard owns onto a standard one.
            unsafe { libc::dup2(original.as_raw_fd(), *target) };
            if let Some(copier) = copier.take() {
                let _ = copier.join();
            }
        }
    }
}

fn duplicate(fd: RawFd) -> std::io::Result<OwnedFd> {
    // SAFETY: F_DUPFD_CLOEXEC returns a new descriptor or -1.
    let copy = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) };
    if copy < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `copy` is a fresh descriptor owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(copy) })
}

fn flush(target: RawFd) {
    if target == libc::STDOUT_FILENO {
        let _ = std::io::stdout().flush();
    } else {
        let _ = std::io::stderr().flush();
    }
}
