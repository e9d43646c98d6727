//! Splitting work that is the same for every item (tools to index, definitions to build) over
//! the cores, for the start-up and build paths where a few thousand tools add up.

use std::sync::OnceLock;

/// How many threads to split `items` items over: one per core, with at least `per_thread` each.
///
/// ```
/// assert_eq!(tool_core::registry::parallel::threads_for(10, 100), 1); // too few to split
/// ```
pub fn threads_for(items: usize, per_thread: usize) -> usize {
    let most = items / per_thread.max(1);
    // Too few items for two threads (a small registry, one tool inserted into a catalog): the
    // cores need not be counted.
    if most < 2 {
        return 1;
    }
    cores().min(most)
}

/// The cores this process may use, counted once: counting reads the affinity mask and the
/// cgroup's CPU quota files, a dozen microseconds of system calls each time.
fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, usize::from))
}

/// `f` over `items` split into consecutive parts, one per core when there are at least
/// `per_thread` items for each; the results in order. A panic in `f` is raised again here.
/// (The catalog tokenizes its tools in batches this way.)
///
/// ```
/// let sums = tool_core::registry::parallel::in_parallel(&[1, 2, 3, 4], 1, |part| part.iter().sum::<i32>());
/// assert_eq!(sums.iter().sum::<i32>(), 10);
/// ```
pub fn in_parallel<T: Sync, R: Send>(
    items: &[T],
    per_thread: usize,
    f: impl Fn(&[T]) -> R + Sync,
) -> Vec<R> {
    split_over(items, threads_for(items.len(), per_thread), f)
}

/// `f` over `items` in `threads` consecutive parts (fewer when there are too few items).
fn split_over<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&[T]) -> R + Sync,
) -> Vec<R> {
    if threads <= 1 {
        return vec![f(items)];
    }
    let chunk = items.len().div_ceil(threads).max(1);
    // Every part on a thread of its own: running one on the caller's thread made a 10k-tool
    // catalog build about 10% slower (more page faults and heap growth); start-up moved within
    // noise.
    std::thread::scope(|scope| {
        let workers: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(|| f(part)))
            .collect();
        workers
            .into_iter()
            .map(|worker| {
                worker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}

/// `f` over every item, on every core when there are at least `per_thread` items for each; the
/// results in the items' order. (The registry builds its tools this way; adapters use it for
/// per-tool work, such as a large page of a tool listing.)
///
/// ```
/// let squares = tool_core::registry::parallel::map_in_parallel(&[1, 2, 3], 1, |n| n * n);
/// assert_eq!(squares, [1, 4, 9]);
/// ```
pub fn map_in_parallel<T: Sync, R: Send>(
    items: &[T],
    per_thread: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    in_parallel(items, per_thread, |part| {
        part.iter().map(&f).collect::<Vec<R>>()
    })
    .into_iter()
    .flatten()
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_the_items_order_however_they_are_split() {
        let items: Vec<u32> = (0..10_000).collect();
        for per_thread in [1, 7, 4096, 20_000] {
            let doubled = map_in_parallel(&items, per_thread, |i| i * 2);
            assert_eq!(doubled, items.iter().map(|i| i * 2).collect::<Vec<_>>());
            let sums = in_parallel(&items, per_thread, |part| part.iter().sum::<u32>());
            assert_eq!(sums.iter().sum::<u32>(), items.iter().sum::<u32>());
        }
        assert!(map_in_parallel(&[] as &[u32], 1, |i| *i).is_empty());
    }

    #[test]
    fn every_item_is_in_exactly_one_part_for_any_number_of_threads() {
        for len in [0usize, 1, 2, 3, 9, 64, 65, 1000] {
            let items: Vec<usize> = (0..len).collect();
            for threads in 0..=12 {
                let parts = split_over(&items, threads, |part| part.to_vec());
                assert_eq!(parts.concat(), items, "{len} items over {threads} threads");
                assert!(
                    parts.len() <= threads.max(1),
                    "{len} items over {threads} threads"
                );
            }
        }
    }

    #[test]
    fn threads_are_cores_at_most_and_each_gets_its_share() {
        let cores = cores();
        assert!(cores >= 1);
        for (items, per_thread) in [
            (0, 32),
            (63, 32),
            (64, 32),
            (1000, 32),
            (10, 0),
            (1 << 20, 1),
        ] {
            let threads = threads_for(items, per_thread);
            assert!(
                (1..=cores).contains(&threads),
                "{items} / {per_thread}: {threads}"
            );
            if threads > 1 {
                assert!(
                    items / threads >= per_thread,
                    "{items} / {per_thread}: {threads}"
                );
            }
        }
        assert_eq!(threads_for(63, 32), 1);
        assert_eq!(threads_for(1 << 20, 1), cores);
    }

    #[test]
    #[should_panic(expected = "item 5000")]
    fn a_panic_in_a_worker_is_raised_to_the_caller() {
        let items: Vec<u32> = (0..10_000).collect();
        map_in_parallel(&items, 1, |&i| {
            if i == 5000 {
                panic!("item 5000");
            }
            i
        });
    }
}
