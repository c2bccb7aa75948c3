//! CPU placement of measuring threads: parse a CPU list, pin the calling
//! thread, ask where it runs.
//!
//! On a small VM request/response latency is bimodal: about 13 µs with both
//! ends on one CPU, about 70 µs when the kernel has to wake the other vCPU.
//! An unpinned tool therefore measures the scheduler as much as the network.
//! The engine pins each flow thread with [`pin_current_thread`] when the user
//! asks (`--client-cpus`, `--server-cpus`) and records the placement, using
//! [`current_cpu`] to report where a thread actually ran.
//!
//! CPU lists use the kernel's own syntax (`Documentation/admin-guide/cgroup-v2`
//! "cpuset.cpus", `/sys/devices/system/cpu/online`, `taskset -c`): comma
//! separated CPU numbers and inclusive ranges, e.g. `0,2-3`.
//!
//! Shell equivalent of pinning: `taskset -c 0,2-3 COMMAND` (but per thread).

use std::io;

/// The largest CPU number + 1 that a `cpu_set_t` can hold (`CPU_SETSIZE`,
/// 1024 on glibc and musl).
pub const MAX_CPUS: u32 = libc::CPU_SETSIZE as u32;

/// Parses a CPU list such as `"0"`, `"0,2-3"` or `"1-2, 5"` into the CPU
/// numbers it names, ascending and without repetitions.
///
/// The syntax is the kernel's list format (as in
/// `/sys/devices/system/cpu/online` and `taskset -c`): items separated by
/// commas, each a CPU number or an inclusive range `FIRST-LAST`. Spaces
/// around items are ignored.
///
/// # Errors
/// A message naming the offending item when the list is empty, an item is
/// not a number, a range runs backwards (`3-1`), or a CPU number is at least
/// [`MAX_CPUS`].
pub fn parse_cpu_list(text: &str) -> Result<Vec<u32>, String> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err("empty CPU list: give CPU numbers such as `0` or `0,2-3`".to_string());
    }
    let mut cpus = Vec::new();
    for raw_item in trimmed.split(',') {
        let item = raw_item.trim();
        if item.is_empty() {
            return Err(format!(
                "CPU list `{trimmed}` has an empty item (two commas or a trailing comma)"
            ));
        }
        let (first, last) = match item.split_once('-') {
            Some((a, b)) => (parse_cpu_number(a, item)?, parse_cpu_number(b, item)?),
            None => {
                let cpu = parse_cpu_number(item, item)?;
                (cpu, cpu)
            }
        };
        if first > last {
            return Err(format!(
                "CPU range `{item}` runs backwards: write `{last}-{first}`"
            ));
        }
        cpus.extend(first..=last);
    }
    cpus.sort_unstable();
    cpus.dedup();
    Ok(cpus)
}

/// Parses one CPU number of `item`, checking it fits a `cpu_set_t`.
fn parse_cpu_number(text: &str, item: &str) -> Result<u32, String> {
    let text = text.trim();
    let cpu: u32 = text
        .parse()
        .map_err(|_| format!("`{text}` in CPU list item `{item}` is not a CPU number"))?;
    if cpu >= MAX_CPUS {
        return Err(format!(
            "CPU {cpu} in `{item}` is out of range: CPU numbers go up to {}",
            MAX_CPUS - 1
        ));
    }
    Ok(cpu)
}

/// Restricts the calling thread (not the whole process) to `cpus`.
///
/// Calls `sched_setaffinity(2)` with pid 0, which on Linux means the calling
/// thread. Other threads, and threads spawned earlier, keep their placement;
/// threads spawned afterwards by this one inherit it.
///
/// # Errors
/// `InvalidInput` for an empty list or a CPU number ≥ [`MAX_CPUS`];
/// the OS error (`EINVAL`) when none of the CPUs is online or allowed by the
/// thread's cpuset.
pub fn pin_current_thread(cpus: &[u32]) -> io::Result<()> {
    if cpus.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "cannot pin a thread to an empty CPU list",
        ));
    }
    // SAFETY: cpu_set_t is a plain bit array; all-zero is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &cpu in cpus {
        if cpu >= MAX_CPUS {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("CPU {cpu} is out of range (at most {})", MAX_CPUS - 1),
            ));
        }
        // SAFETY: cpu < CPU_SETSIZE, checked above.
        unsafe { libc::CPU_SET(cpu as usize, &mut set) };
    }
    // SAFETY: `set` is a valid cpu_set_t of the size passed.
    let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// The CPUs the calling thread may run on (`sched_getaffinity(2)`), ascending.
///
/// # Errors
/// The OS error of `sched_getaffinity`.
pub fn allowed_cpus() -> io::Result<Vec<u32>> {
    // SAFETY: all-zero is a valid empty cpu_set_t.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is writable and of the size passed.
    let rc =
        unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((0..MAX_CPUS)
        // SAFETY: every index is below CPU_SETSIZE.
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu as usize, &set) })
        .collect())
}

/// The CPU the calling thread is running on right now (`sched_getcpu(3)`),
/// or `None` where the kernel cannot tell. The answer may be stale as soon
/// as it returns unless the thread is pinned to one CPU.
pub fn current_cpu() -> Option<u32> {
    // SAFETY: sched_getcpu takes no arguments and only returns a value.
    let cpu = unsafe { libc::sched_getcpu() };
    u32::try_from(cpu).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_cpu_parses_to_itself() {
        assert_eq!(parse_cpu_list("0"), Ok(vec![0]));
    }

    #[test]
    fn list_with_range_expands_and_sorts() {
        assert_eq!(parse_cpu_list("3, 0,1-2"), Ok(vec![0, 1, 2, 3]));
        assert_eq!(parse_cpu_list("0,2-3"), Ok(vec![0, 2, 3]));
    }

    #[test]
    fn repeated_cpus_appear_once() {
        assert_eq!(parse_cpu_list("1,1,0-1"), Ok(vec![0, 1]));
    }

    #[test]
    fn empty_list_is_rejected_with_an_example() {
        let error = parse_cpu_list("  ").unwrap_err();
        assert!(error.contains("empty CPU list"), "{error}");
    }

    #[test]
    fn trailing_comma_is_rejected() {
        let error = parse_cpu_list("0,").unwrap_err();
        assert!(error.contains("empty item"), "{error}");
    }

    #[test]
    fn words_are_rejected_naming_the_item() {
        let error = parse_cpu_list("0,two").unwrap_err();
        assert!(error.contains("`two`"), "{error}");
    }

    #[test]
    fn backwards_range_is_rejected_with_the_fix() {
        let error = parse_cpu_list("3-1").unwrap_err();
        assert!(error.contains("`1-3`"), "{error}");
    }

    #[test]
    fn cpu_beyond_cpu_setsize_is_rejected() {
        let error = parse_cpu_list("0-5000").unwrap_err();
        assert!(error.contains("out of range"), "{error}");
    }

    #[test]
    fn negative_numbers_are_rejected() {
        assert!(parse_cpu_list("-1").is_err());
    }

    #[test]
    fn pinning_to_an_empty_list_is_an_input_error() {
        let error = pin_current_thread(&[]).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::InvalidInput);
    }

    #[test]
    fn pinned_thread_runs_on_the_chosen_cpu() {
        let allowed = allowed_cpus().expect("sched_getaffinity works");
        let target = *allowed.last().expect("at least one CPU is allowed");
        // A fresh thread, so the test runner's own thread keeps its placement.
        let (placement, seen) = std::thread::spawn(move || {
            pin_current_thread(&[target]).expect("pinning to an allowed CPU works");
            std::thread::yield_now();
            (allowed_cpus().unwrap(), current_cpu())
        })
        .join()
        .unwrap();
        assert_eq!(placement, vec![target]);
        assert_eq!(seen, Some(target));
    }

    #[test]
    fn current_cpu_is_among_the_allowed_ones() {
        let allowed = allowed_cpus().unwrap();
        let cpu = current_cpu().expect("Linux reports the current CPU");
        // The thread may migrate between the two calls, but only within its set.
        assert!(allowed.contains(&cpu), "{cpu} not in {allowed:?}");
    }
}
