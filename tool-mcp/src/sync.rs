//! Locks whose holder panicked: every value a lock guards in this crate is replaced whole or
//! changed in one step, so a panic elsewhere leaves no half-made value behind, and poisoning
//! is ignored rather than turned into a second panic. A leaf: it imports nothing of the crate,
//! so any module may use it.

use std::sync::{Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Locks `mutex`, poisoned or not.
pub(crate) fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The value of a `mutex` held alone (`&mut`), poisoned or not.
pub(crate) fn get_mut<T: ?Sized>(mutex: &mut Mutex<T>) -> &mut T {
    mutex.get_mut().unwrap_or_else(PoisonError::into_inner)
}

/// Reads `lock`, poisoned or not.
pub(crate) fn read<T: ?Sized>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(PoisonError::into_inner)
}

/// Writes `lock`, poisoned or not.
pub(crate) fn write<T: ?Sized>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex, RwLock};

    use super::*;

    #[test]
    fn a_poisoned_lock_still_gives_its_value() {
        let mutex = Arc::new(Mutex::new(1));
        let rw = Arc::new(RwLock::new(1));
        let (m, r) = (mutex.clone(), rw.clone());
        let panicked = std::thread::spawn(move || {
            let _m = m.lock();
            let _r = r.write();
            panic!("poisons both");
        })
        .join();
        assert!(panicked.is_err());
        assert!(mutex.is_poisoned() && rw.is_poisoned());
        *lock(&mutex) += 1;
        *write(&rw) += 1;
        assert_eq!((*lock(&mutex), *read(&rw)), (2, 2));
        let mut owned = Mutex::new(3);
        *get_mut(&mut owned) += 1;
        assert_eq!(*lock(&owned), 4);
    }
}
