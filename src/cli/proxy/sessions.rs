//! The protocol state of `mcpwire proxy http`, one [`Session`] per `Mcp-Session-Id` (legacy
//! Streamable HTTP, spec digest §7.3), in a table bounded to `--max-sessions` entries: when
//! it is full, the least recently used session's state is dropped to make room, so a client
//! cannot exhaust memory by inventing session ids.
//!
//! A session's state is shared ([`SharedSession`]) between the table and the responses of
//! that session still streaming through the proxy: an evicted (or deleted) session's state
//! lives on until its last response has been judged, and is then freed.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};

use mcpwire::profile::Session;

/// One session's validators and request tracker, shared by the table and the requests and
/// responses of that session in flight.
pub type SharedSession = Arc<Mutex<Session>>;

/// Locks a session (a panic while it was held leaves its state as it was).
pub fn lock(s: &SharedSession) -> MutexGuard<'_, Session> {
    s.lock().unwrap_or_else(|p| p.into_inner())
}

/// Wraps a session for sharing.
pub fn share(s: Session) -> SharedSession {
    Arc::new(Mutex::new(s))
}

struct Slot {
    session: SharedSession,
    /// Its key in [`SessionTable::lru`].
    stamp: u64,
}

/// Sessions by `Mcp-Session-Id`, at most `cap` of them, least recently used evicted first.
///
/// Memory is O(`cap`) entries (plus, per session, what its [`Session`] holds: at most
/// `--max-in-flight` tracked ids per sender). A capacity of 0 stores nothing: every request
/// is judged with a fresh session.
pub struct SessionTable {
    cap: usize,
    map: HashMap<String, Slot>,
    /// Use stamp → key; the first entry is the least recently used session.
    lru: BTreeMap<u64, String>,
    next: u64,
    evicted: u64,
}

impl SessionTable {
    /// An empty table holding at most `cap` sessions.
    pub fn new(cap: usize) -> Self {
        Self {
            cap,
            map: HashMap::new(),
            lru: BTreeMap::new(),
            next: 0,
            evicted: 0,
        }
    }

    fn stamp(&mut self) -> u64 {
        self.next += 1;
        self.next
    }

    /// The session stored under `key`, now the most recently used; when there is none, a
    /// new one from `make`, stored (evicting the least recently used session when the table
    /// is full; not stored at all when the capacity is 0).
    pub fn get_or_insert_with(
        &mut self,
        key: &str,
        make: impl FnOnce() -> Session,
    ) -> SharedSession {
        let stamp = self.stamp();
        if let Some(slot) = self.map.get_mut(key) {
            self.lru.remove(&slot.stamp);
            slot.stamp = stamp;
            self.lru.insert(stamp, key.to_owned());
            return slot.session.clone();
        }
        let session = share(make());
        self.insert(key, session.clone());
        session
    }

    /// The state stored under `key`, without making room for it or marking it used.
    pub fn get(&self, key: &str) -> Option<SharedSession> {
        self.map.get(key).map(|slot| slot.session.clone())
    }

    /// Stores `session` under `key` as the most recently used, replacing the state stored
    /// there before (a server's `InitializeResult` names the session its `initialize`
    /// started). Evicts the least recently used session when the table is full.
    pub fn insert(&mut self, key: &str, session: SharedSession) {
        if self.cap == 0 {
            return;
        }
        self.remove(key);
        while self.map.len() >= self.cap {
            let Some((_, oldest)) = self.lru.pop_first() else {
                break;
            };
            if self.map.remove(&oldest).is_some() {
                self.evicted += 1;
            }
        }
        let stamp = self.stamp();
        self.lru.insert(stamp, key.to_owned());
        self.map.insert(key.to_owned(), Slot { session, stamp });
    }

    /// Drops the state stored under `key` (the session ended); says whether there was one.
    pub fn remove(&mut self, key: &str) -> bool {
        match self.map.remove(key) {
            Some(slot) => {
                self.lru.remove(&slot.stamp);
                true
            }
            None => false,
        }
    }

    /// Whether a session is stored under `key` (does not count as a use).
    #[cfg(test)]
    fn contains(&self, key: &str) -> bool {
        self.map.contains_key(key)
    }

    /// Sessions stored.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.map.len()
    }

    /// Sessions evicted so far because the table was full.
    pub fn evicted(&self) -> u64 {
        self.evicted
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpwire::profile::Profile;

    fn fresh() -> Session {
        Session::new(Profile::Auto, 16)
    }

    #[test]
    fn the_cap_evicts_the_least_recently_used_at_the_boundary() {
        let cap = 3;
        let mut t = SessionTable::new(cap);
        for k in ["a", "b", "c"] {
            t.get_or_insert_with(k, fresh);
        }
        // At the cap: all kept.
        assert_eq!((t.len(), t.evicted()), (cap, 0));
        // Using "a" makes "b" the least recently used.
        let a = t.get_or_insert_with("a", || unreachable!("a is stored"));
        // cap + 1: "b" goes.
        t.get_or_insert_with("d", fresh);
        assert_eq!((t.len(), t.evicted()), (cap, 1));
        assert!(!t.contains("b"));
        for k in ["a", "c", "d"] {
            assert!(t.contains(k), "{k}");
        }
        // The state handed out is the stored one.
        let a2 = t.get_or_insert_with("a", || unreachable!("a is stored"));
        assert!(Arc::ptr_eq(&a, &a2));
        // An evicted session comes back fresh.
        let b = t.get_or_insert_with("b", fresh);
        assert_eq!(t.evicted(), 2);
        assert!(!t.contains("c"), "c was the least recently used");
        assert_eq!(Arc::strong_count(&b), 2);
    }

    #[test]
    fn many_invented_ids_stay_bounded() {
        let mut t = SessionTable::new(8);
        for i in 0..10_000 {
            t.get_or_insert_with(&format!("s{i}"), fresh);
        }
        assert_eq!(t.len(), 8);
        assert_eq!(t.lru.len(), 8);
        assert_eq!(t.evicted(), 10_000 - 8);
        assert!(t.contains("s9999") && !t.contains("s9991"));
    }

    #[test]
    fn remove_insert_and_capacity_zero() {
        let mut t = SessionTable::new(2);
        t.get_or_insert_with("a", fresh);
        assert!(t.remove("a"));
        assert!(!t.remove("a"));
        assert_eq!((t.len(), t.lru.len()), (0, 0));
        // insert replaces the state under a key without counting an eviction.
        let s1 = share(fresh());
        let s2 = share(fresh());
        t.insert("x", s1);
        t.insert("x", s2.clone());
        assert_eq!((t.len(), t.evicted()), (1, 0));
        assert!(Arc::ptr_eq(&t.get_or_insert_with("x", fresh), &s2));

        let mut none = SessionTable::new(0);
        let a = none.get_or_insert_with("a", fresh);
        let b = none.get_or_insert_with("a", fresh);
        assert!(!Arc::ptr_eq(&a, &b), "capacity 0 keeps nothing");
        assert_eq!(none.len(), 0);
    }
}
