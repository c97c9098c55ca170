//! CPU time from /proc, shared by the benchmarks: this process's, PostgreSQL's, and the machine's idle share and
//! steal (the host's).

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "a benchmark fails loudly"
)]

/// CPU seconds used so far by this process and by PostgreSQL, and the machine's jiffies, from /proc.
pub struct CpuTimes {
    bench: f64,
    postgres: f64,
    idle: u64,
    steal: u64,
    all: u64,
}

/// What was used between two [`CpuTimes`]: CPU seconds, the machine's idle share, and the share the host took
/// for others (steal): a run with steal was slowed by the host, not by the code measured.
pub struct CpuUsed {
    pub bench: f64,
    pub postgres: f64,
    pub idle: f64,
    pub steal: f64,
}

impl CpuTimes {
    pub fn now() -> Self {
        let tick = 100.0; // USER_HZ: /proc counts in 1/100 s on Linux whatever the kernel's HZ.
        let (own_user, own_system) = {
            let fields = proc_stat("self").unwrap();
            (fields[11], fields[12])
        };
        let stat = std::fs::read_to_string("/proc/stat").unwrap();
        let machine: Vec<u64> = stat
            .lines()
            .next()
            .unwrap()
            .split_whitespace()
            .skip(1)
            .take(8)
            .map(|value| value.parse().unwrap())
            .collect();
        Self {
            bench: (own_user + own_system) as f64 / tick,
            postgres: postgres_jiffies() as f64 / tick,
            idle: machine[3] + machine[4],
            steal: machine[7],
            all: machine.iter().sum(),
        }
    }

    pub fn since(&self, before: &Self) -> CpuUsed {
        let all = (self.all - before.all).max(1) as f64;
        CpuUsed {
            bench: self.bench - before.bench,
            postgres: self.postgres - before.postgres,
            idle: (self.idle - before.idle) as f64 / all,
            steal: (self.steal - before.steal) as f64 / all,
        }
    }
}

/// The numeric fields of /proc/PID/stat after the command name (index 11 is utime, 13 cutime).
fn proc_stat(pid: &str) -> Option<Vec<u64>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, fields) = stat.rsplit_once(')')?;
    Some(
        fields
            .split_whitespace()
            .map(|field| field.parse().unwrap_or(0))
            .collect(),
    )
}

/// Jiffies used by every live `postgres` process, plus what the postmaster has reaped from its backends
/// already gone (its children's times).
fn postgres_jiffies() -> u64 {
    let mut total = 0;
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let pid = entry.file_name().to_string_lossy().into_owned();
        if !pid.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let is_postgres = |pid: &str| {
            std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|comm| comm.trim() == "postgres")
        };
        if !is_postgres(&pid) {
            continue;
        }
        let Some(fields) = proc_stat(&pid) else {
            continue;
        };
        total += fields[11] + fields[12];
        if !is_postgres(&fields[1].to_string()) {
            total += fields[13] + fields[14];
        }
    }
    total
}
