//! The process's own figures for the `process_*` metrics, read from Linux's
//! `/proc/self` at each scrape (a few small files; nothing is kept): CPU
//! time and start time from `stat`, memory and threads from `status`, open
//! descriptors from `fd`, their limit from `limits`. Elsewhere (no `/proc`)
//! there are none.

use std::path::Path;

use equip_domain::service_stats::ProcessStats;

/// The process's figures, or `None` when `/proc/self` cannot be read.
#[must_use]
pub fn read() -> Option<ProcessStats> {
    read_from(Path::new("/proc"))
}

fn read_from(proc: &Path) -> Option<ProcessStats> {
    let me = proc.join("self");
    let stat = std::fs::read_to_string(me.join("stat")).ok()?;
    let status = std::fs::read_to_string(me.join("status")).ok()?;
    let boot_time = std::fs::read_to_string(proc.join("stat"))
        .ok()
        .and_then(|s| boot_time(&s));
    let ticks = clock_ticks();
    let (cpu_ticks, start_ticks) = cpu_and_start_ticks(&stat)?;
    let kib = |field: &str| status_kib(&status, field).unwrap_or(0) * 1024;
    let open_fds = std::fs::read_dir(me.join("fd"))
        .map(|d| d.count() as u64)
        .unwrap_or(0);
    let max_fds = std::fs::read_to_string(me.join("limits"))
        .ok()
        .and_then(|l| max_open_files(&l));
    #[allow(clippy::cast_precision_loss)]
    let seconds = |t: u64| t as f64 / ticks as f64;
    Some(ProcessStats {
        cpu_seconds: seconds(cpu_ticks),
        resident_bytes: kib("VmRSS"),
        resident_anonymous_bytes: kib("RssAnon"),
        resident_file_bytes: kib("RssFile"),
        virtual_bytes: kib("VmSize"),
        open_fds,
        max_fds,
        threads: status_kib(&status, "Threads").unwrap_or(0),
        #[allow(clippy::cast_precision_loss)]
        start_time_seconds: boot_time.map_or(0.0, |b| b as f64 + seconds(start_ticks)),
    })
}

/// Clock ticks a second, the unit of `/proc`'s times (`sysconf(_SC_CLK_TCK)`,
/// from the auxiliary vector).
fn clock_ticks() -> u64 {
    rustix::param::clock_ticks_per_second().max(1)
}

/// `utime + stime` and `starttime` of `/proc/self/stat`, in clock ticks. The
/// command name (field 2) is in parentheses and may hold spaces and
/// parentheses, so fields are counted after its last `)`.
fn cpu_and_start_ticks(stat: &str) -> Option<(u64, u64)> {
    let rest = &stat[stat.rfind(')')? + 1..];
    // After the name: field 3 (state) is the first; utime is field 14,
    // stime 15, starttime 22.
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let field = |n: usize| fields.get(n - 3)?.parse::<u64>().ok();
    Some((field(14)? + field(15)?, field(22)?))
}

/// A field of `/proc/self/status` (`VmRSS:   1234 kB`, `Threads:  9`): its
/// number.
fn status_kib(status: &str, name: &str) -> Option<u64> {
    status.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        (key == name).then(|| value.split_whitespace().next()?.parse().ok())?
    })
}

/// `btime` of `/proc/stat`: the boot time, seconds since the epoch.
fn boot_time(stat: &str) -> Option<u64> {
    stat.lines()
        .find_map(|l| l.strip_prefix("btime "))
        .and_then(|v| v.trim().parse().ok())
}

/// The soft limit of `Max open files` in `/proc/self/limits`; `None` when
/// unlimited.
fn max_open_files(limits: &str) -> Option<u64> {
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line["Max open files".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_stat_line_is_read_after_the_command_name() {
        let stat = "4242 (equip (x) y) S 1 4242 4242 0 -1 4194560 8155 0 0 0 \
                    250 75 0 0 20 0 9 0 123456 1146880000 20000 18446744073709551615";
        assert_eq!(cpu_and_start_ticks(stat), Some((325, 123_456)));
        assert_eq!(cpu_and_start_ticks("garbage"), None);
    }

    #[test]
    fn status_limits_and_boot_time_are_parsed() {
        let status = "Name:\tequip\nVmSize:\t  1120000 kB\nVmRSS:\t    20480 kB\n\
                      RssAnon:\t    10240 kB\nRssFile:\t    10000 kB\nThreads:\t9\n";
        assert_eq!(status_kib(status, "VmRSS"), Some(20_480));
        assert_eq!(status_kib(status, "RssFile"), Some(10_000));
        assert_eq!(status_kib(status, "Threads"), Some(9));
        assert_eq!(status_kib(status, "Vm"), None);
        let limits = "Limit                     Soft Limit           Hard Limit           Units\n\
                      Max open files            1024                 524288               files\n";
        assert_eq!(max_open_files(limits), Some(1024));
        let unlimited =
            "Max open files            unlimited            unlimited            files\n";
        assert_eq!(max_open_files(unlimited), None);
        assert_eq!(
            boot_time("cpu  1 2 3\nbtime 1795512600\nprocesses 9\n"),
            Some(1_795_512_600)
        );
    }

    #[test]
    fn this_process_is_read_on_linux() {
        if !Path::new("/proc/self/stat").exists() {
            return;
        }
        let p = read().unwrap();
        assert!(
            p.resident_bytes > 0 && p.virtual_bytes >= p.resident_bytes,
            "{p:?}"
        );
        assert!(p.threads >= 1 && p.open_fds >= 3, "{p:?}");
        let now = chrono::Utc::now().timestamp() as f64;
        assert!(
            p.start_time_seconds > now - 86_400.0 && p.start_time_seconds <= now + 1.0,
            "{p:?}"
        );
    }
}
