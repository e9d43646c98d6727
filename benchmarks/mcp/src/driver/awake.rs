//! `--awake`: keeps every CPU out of halt for the whole run, with one spinning process per CPU
//! in the lowest scheduling class (`SCHED_IDLE`, through util-linux's `taskset` and `chrt`).
//!
//! On a VM whose idle vCPUs halt at once (the `haltpoll` idle driver with
//! `guest_halt_poll_ns` 0, as on the machine of BENCHMARKS.md), waking a process that sleeps on
//! another CPU costs a VM exit and the host's scheduling, and a sequential call is mostly two
//! such wake-ups. A CPU that runs only a `SCHED_IDLE` task counts as idle to the kernel (a woken
//! task is placed there and preempts the spinner at once), but it never halts. Every server in
//! the run meets the same condition; the run's JSON records it.

use std::process::{Child, Command, Stdio};

/// The spinners, stopped when dropped. Each also stops by itself once the driver is gone.
pub struct Spinners(Vec<Child>);

impl Spinners {
    /// One spinner pinned to each of the first `cpus` CPUs.
    pub fn start(cpus: usize) -> Result<Self, String> {
        let mut spinners = Spinners(Vec::with_capacity(cpus));
        for cpu in 0..cpus {
            let child = Command::new("taskset")
                .args(["-c", &cpu.to_string(), "chrt", "--idle", "0", "sh", "-c"])
                // `$PPID` is the driver (taskset and chrt exec what they run).
                .arg("while kill -0 $PPID 2>/dev/null; do :; done")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .map_err(|e| format!("--awake needs taskset and chrt (util-linux): {e}"))?;
            spinners.0.push(child);
        }
        // A spinner that could not take its CPU or class has already exited.
        std::thread::sleep(std::time::Duration::from_millis(100));
        for child in &mut spinners.0 {
            if let Ok(Some(status)) = child.try_wait() {
                return Err(format!("--awake: a spinner exited at once ({status})"));
            }
        }
        Ok(spinners)
    }
}

impl Drop for Spinners {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
