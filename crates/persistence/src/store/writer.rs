//! The SQLite writer queue of one database: a mutex that this process's
//! people and group writes take before their write transaction, and the
//! count of people created, which paces the WAL checkpoints run outside it.
//! Scoped to one database file: every [`super::Store`] of the process on
//! that file (its clones, its write sessions, another pool on the same file)
//! shares one; stores on two files never wait for each other.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::{Duration, Instant};

/// SQLite has one writer at a time, and a writer that finds the lock taken
/// sleeps in growing steps (the busy handler) before it retries. Queuing
/// this process's writers on a mutex first hands the lock over without those
/// sleeps; other processes and other writers still wait on the busy timeout.
#[derive(Debug, Default)]
pub(crate) struct SqliteWriter {
    lock: Mutex<()>,
    /// Writers waiting for `lock` now.
    waiting: AtomicUsize,
    /// People created through this database's stores (for the checkpoints).
    people_created: AtomicU64,
}

/// The longest a run of writes waits in [`SqliteWriter::let_others_in`].
const LET_IN_AT_MOST: Duration = Duration::from_millis(5);

/// The writers of the database files this process has open, by file.
static WRITERS: Mutex<Option<HashMap<PathBuf, Weak<SqliteWriter>>>> = Mutex::new(None);

impl SqliteWriter {
    /// The writer of the SQLite database `file` (one per file in the
    /// process, for as long as a store holds it); a writer of its own for a
    /// database without a file (`:memory:`, PostgreSQL).
    pub(crate) fn of(file: Option<&Path>) -> Arc<SqliteWriter> {
        let Some(file) = file else {
            return Arc::default();
        };
        // The same file by another name (relative, through a link) is the
        // same database.
        let key = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
        let mut writers = WRITERS.lock().unwrap_or_else(PoisonError::into_inner);
        let writers = writers.get_or_insert_with(HashMap::new);
        writers.retain(|_, w| w.strong_count() > 0);
        if let Some(writer) = writers.get(&key).and_then(Weak::upgrade) {
            return writer;
        }
        let writer = Arc::<SqliteWriter>::default();
        writers.insert(key, Arc::downgrade(&writer));
        writer
    }

    /// Waits for this database's other writers of the process.
    pub(crate) fn lock(&self) -> MutexGuard<'_, ()> {
        self.waiting.fetch_add(1, Ordering::Relaxed);
        let guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        self.waiting.fetch_sub(1, Ordering::Relaxed);
        guard
    }

    /// Between two transactions of a long run of writes (a receipt's
    /// entries, the hold release's batches), with the lock released: lets
    /// the writers that queued meanwhile go first, waiting up to
    /// [`LET_IN_AT_MOST`]. The mutex is not fair: without this, the run
    /// takes the lock again before a woken writer runs, and a SCIM create
    /// waits for the whole run instead of one of its transactions.
    pub(crate) fn let_others_in(&self) {
        let until = Instant::now() + LET_IN_AT_MOST;
        while self.waiting.load(Ordering::Relaxed) > 0 && Instant::now() < until {
            std::thread::sleep(Duration::from_micros(50));
        }
    }

    /// Counts `n` people created; whether the count crossed a multiple of
    /// `every`.
    pub(crate) fn people_created(&self, n: u64, every: u64) -> bool {
        let before = self.people_created.fetch_add(n, Ordering::Relaxed);
        (before + n) / every > before / every
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn one_writer_per_file() {
        let dir = std::env::temp_dir().join(format!("equip-writer-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, b) = (dir.join("a.db"), dir.join("b.db"));
        std::fs::write(&a, b"").unwrap();
        std::fs::write(&b, b"").unwrap();
        let first = SqliteWriter::of(Some(&a));
        let again = SqliteWriter::of(Some(&dir.join(".").join("a.db")));
        let other = SqliteWriter::of(Some(&b));
        assert!(Arc::ptr_eq(&first, &again));
        assert!(!Arc::ptr_eq(&first, &other));
        // Holding one file's lock leaves the other's free.
        let _held = first.lock();
        assert!(other.lock.try_lock().is_ok());
        assert!(again.lock.try_lock().is_err());
        // Without a file: a writer of its own each time.
        assert!(!Arc::ptr_eq(
            &SqliteWriter::of(None),
            &SqliteWriter::of(None)
        ));
        // The checkpoint count is the database's.
        assert!(!first.people_created(299, 300));
        assert!(again.people_created(1, 300));
        assert!(!other.people_created(1, 300));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
