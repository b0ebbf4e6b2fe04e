//! Per-entity work spread over a few threads: entities are independent, and while the cleaning
//! stage runs on a worker thread the host's other cores are idle.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// Below this much work (in rows) threads cost more than they save.
pub const MIN_PARALLEL_ROWS: usize = 20_000;

/// How many threads `map_indexed` uses for `rows` rows of work: one for small inputs, else the
/// host's cores up to four.
pub fn threads_for(rows: usize) -> usize {
    if rows < MIN_PARALLEL_ROWS {
        return 1;
    }
    cores().min(4)
}

/// The host's cores, asked once: `available_parallelism` reads cgroup files on Linux (some 15 µs
/// a call), which a sub-millisecond kernel should not pay each time.
fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// `(0..n).map(f).collect()`, on up to `threads` scoped threads that take indices one at a time
/// (entities differ in size); the results come back in index order, so the outcome never depends
/// on the thread count.
pub fn map_indexed<T: Send>(n: usize, threads: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    if threads <= 1 || n <= 1 {
        return (0..n).map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let parts: Vec<Vec<(usize, T)>> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads.min(n))
            .map(|_| {
                s.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= n {
                            return done;
                        }
                        done.push((i, f(i)));
                    }
                })
            })
            .collect();
        // A panic in `f` is a bug: re-raise it on the calling thread as it would have happened there.
        workers.into_iter().map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p))).collect()
    });
    let mut slots: Vec<Option<T>> = (0..n).map(|_| None).collect();
    for (i, t) in parts.into_iter().flatten() {
        slots[i] = Some(t);
    }
    slots.into_iter().map(|t| t.expect("every index is taken exactly once")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_index_order_whatever_the_thread_count() {
        let serial = map_indexed(1000, 1, |i| i * i);
        for threads in [2, 3, 8] {
            assert_eq!(map_indexed(1000, threads, |i| i * i), serial);
        }
        assert!(map_indexed(0, 4, |i| i).is_empty());
    }

    #[test]
    fn small_inputs_stay_on_one_thread() {
        assert_eq!(threads_for(MIN_PARALLEL_ROWS - 1), 1);
    }
}
