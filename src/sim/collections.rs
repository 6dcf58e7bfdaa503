//! Ordered maps and sets kept as sorted vectors, with the part of
//! `std::collections::BTreeMap`'s and `BTreeSet`'s API this crate uses, under
//! the same names.
//!
//! Why: the page is downloaded by every learner, and each pair of key and
//! value types given to std's B-tree instantiates its whole node code (insert
//! with splits, remove with stealing and merging, subtree clone, drop, and a
//! stable sort for every `collect`): with the fifty or so maps of the
//! simulation that was about a fifth of the WebAssembly. A sorted `Vec`
//! needs a binary search, a `Vec::insert` and a `Vec::remove` per
//! instantiation, a small fraction of that.
//!
//! What stays the same: iteration is in key order, so every loop over a map
//! or set visits the same entries in the same order as with std's B-tree, and
//! the simulation runs event for event as before (the golden trace hash in
//! `tests/determinism.rs` checks it). `insert` into a map replaces the value
//! and keeps the key; `collect` and `extend` keep the last value of equal
//! keys; `Debug`, `PartialEq`, `Ord`, `Hash` and serde's form are std's.
//!
//! What differs: inserting or removing in the middle moves the entries after
//! it, O(n) instead of O(log n). The maps here are small (brokers,
//! partitions, in-flight requests, pending operations) and their keys mostly
//! grow, so most inserts land at the end.

use std::borrow::Borrow;
use std::fmt;
use std::iter::FusedIterator;
use std::ops::{Bound, Index, RangeBounds};

/// The index range `start..end` of the sorted `items` whose key (`key_of`)
/// is in `range`; empty when the range's start is after its end.
fn bounds<E, T: ?Sized + Ord>(items: &[E], range: &impl RangeBounds<T>, key_of: impl Fn(&E) -> &T) -> (usize, usize) {
    let start = match range.start_bound() {
        Bound::Included(s) => items.partition_point(|e| key_of(e) < s),
        Bound::Excluded(s) => items.partition_point(|e| key_of(e) <= s),
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(e) => items.partition_point(|x| key_of(x) <= e),
        Bound::Excluded(e) => items.partition_point(|x| key_of(x) < e),
        Bound::Unbounded => items.len(),
    };
    (start, end.max(start))
}

// ------------------------------------------------------------------ sorting

/// Sorts `items` stably by `key`: the order `slice::sort_by_key` gives.
///
/// A binary insertion sort, whose few instructions per instantiation keep
/// the page small where std's stable sort brings several kilobytes for each
/// element type and key; the lists sorted here are short (replicas, voters,
/// expired timers, a producer's ready batches, messages in flight).
pub fn sort_by_key<T, K: Ord>(items: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `items` stably by `compare`: the order `slice::sort_by` gives.
pub fn sort_by<T>(items: &mut [T], mut compare: impl FnMut(&T, &T) -> std::cmp::Ordering) {
    for i in 1..items.len() {
        // After the last item that is not greater, so equal items keep
        // their order.
        let at = items[..i].partition_point(|sorted| compare(sorted, &items[i]).is_le());
        for j in (at..i).rev() {
            items.swap(j, j + 1);
        }
    }
}

// ------------------------------------------------------------------ map

/// An ordered map: entries sorted by key, each key once.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BTreeMap<K, V> {
    entries: Vec<(K, V)>,
}

impl<K, V> Default for BTreeMap<K, V> {
    fn default() -> Self {
        BTreeMap::new()
    }
}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for BTreeMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K, V> BTreeMap<K, V> {
    pub const fn new() -> Self {
        BTreeMap { entries: Vec::new() }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn clear(&mut self) {
        self.entries.clear();
    }

    pub fn iter(&self) -> Iter<'_, K, V> {
        Iter(self.entries.iter())
    }

    pub fn iter_mut(&mut self) -> IterMut<'_, K, V> {
        IterMut(self.entries.iter_mut())
    }

    pub fn keys(&self) -> Keys<'_, K, V> {
        Keys(self.entries.iter())
    }

    pub fn values(&self) -> Values<'_, K, V> {
        Values(self.entries.iter())
    }

    pub fn values_mut(&mut self) -> ValuesMut<'_, K, V> {
        ValuesMut(self.entries.iter_mut())
    }

    pub fn into_keys(self) -> impl DoubleEndedIterator<Item = K> + ExactSizeIterator {
        self.entries.into_iter().map(|(k, _)| k)
    }

    pub fn into_values(self) -> impl DoubleEndedIterator<Item = V> + ExactSizeIterator {
        self.entries.into_iter().map(|(_, v)| v)
    }

    pub fn first_key_value(&self) -> Option<(&K, &V)> {
        self.entries.first().map(|(k, v)| (k, v))
    }

    pub fn last_key_value(&self) -> Option<(&K, &V)> {
        self.entries.last().map(|(k, v)| (k, v))
    }

    pub fn pop_first(&mut self) -> Option<(K, V)> {
        if self.entries.is_empty() {
            None
        } else {
            Some(self.entries.remove(0))
        }
    }

    pub fn pop_last(&mut self) -> Option<(K, V)> {
        self.entries.pop()
    }

    /// Keeps the entries for which `f` is true, visiting them in key order.
    pub fn retain<F: FnMut(&K, &mut V) -> bool>(&mut self, mut f: F) {
        self.entries.retain_mut(|(k, v)| f(k, v));
    }
}

impl<K: Ord, V> BTreeMap<K, V> {
    fn find<Q: ?Sized + Ord>(&self, key: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
    {
        self.entries.binary_search_by(|(k, _)| k.borrow().cmp(key))
    }

    pub fn get<Q: ?Sized + Ord>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        self.find(key).ok().map(|i| &self.entries[i].1)
    }

    pub fn get_key_value<Q: ?Sized + Ord>(&self, key: &Q) -> Option<(&K, &V)>
    where
        K: Borrow<Q>,
    {
        self.find(key).ok().map(|i| {
            let (k, v) = &self.entries[i];
            (k, v)
        })
    }

    pub fn get_mut<Q: ?Sized + Ord>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        match self.find(key) {
            Ok(i) => Some(&mut self.entries[i].1),
            Err(_) => None,
        }
    }

    pub fn contains_key<Q: ?Sized + Ord>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.find(key).is_ok()
    }

    /// Inserts or replaces; a replace keeps the map's key and returns the
    /// old value, as std's does.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.find(&key) {
            Ok(i) => Some(std::mem::replace(&mut self.entries[i].1, value)),
            Err(i) => {
                self.entries.insert(i, (key, value));
                None
            }
        }
    }

    pub fn remove<Q: ?Sized + Ord>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        self.remove_entry(key).map(|(_, v)| v)
    }

    pub fn remove_entry<Q: ?Sized + Ord>(&mut self, key: &Q) -> Option<(K, V)>
    where
        K: Borrow<Q>,
    {
        match self.find(key) {
            Ok(i) => Some(self.entries.remove(i)),
            Err(_) => None,
        }
    }

    pub fn entry(&mut self, key: K) -> Entry<'_, K, V> {
        match self.find(&key) {
            Ok(index) => Entry::Occupied(OccupiedEntry { entries: &mut self.entries, index }),
            Err(index) => Entry::Vacant(VacantEntry { entries: &mut self.entries, index, key }),
        }
    }

    /// The entries whose keys are in `range`, in key order (none when the
    /// range's start is after its end).
    pub fn range<T: ?Sized + Ord, R: RangeBounds<T>>(&self, range: R) -> Iter<'_, K, V>
    where
        K: Borrow<T>,
    {
        let (start, end) = bounds(&self.entries, &range, |(k, _)| k.borrow());
        Iter(self.entries[start..end].iter())
    }

    pub fn range_mut<T: ?Sized + Ord, R: RangeBounds<T>>(&mut self, range: R) -> IterMut<'_, K, V>
    where
        K: Borrow<T>,
    {
        let (start, end) = bounds(&self.entries, &range, |(k, _)| k.borrow());
        IterMut(self.entries[start..end].iter_mut())
    }
}

impl<K: Ord, Q: ?Sized + Ord, V> Index<&Q> for BTreeMap<K, V>
where
    K: Borrow<Q>,
{
    type Output = V;

    fn index(&self, key: &Q) -> &V {
        self.get(key).expect("no entry found for key")
    }
}

impl<K: Ord, V> FromIterator<(K, V)> for BTreeMap<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut map = BTreeMap::new();
        map.extend(iter);
        map
    }
}

impl<K: Ord, V> Extend<(K, V)> for BTreeMap<K, V> {
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

impl<'a, K: Ord + Copy, V: Copy> Extend<(&'a K, &'a V)> for BTreeMap<K, V> {
    fn extend<I: IntoIterator<Item = (&'a K, &'a V)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(*k, *v);
        }
    }
}

impl<K: Ord, V, const N: usize> From<[(K, V); N]> for BTreeMap<K, V> {
    fn from(entries: [(K, V); N]) -> Self {
        entries.into_iter().collect()
    }
}

impl<K, V> IntoIterator for BTreeMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::vec::IntoIter<(K, V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl<'a, K, V> IntoIterator for &'a BTreeMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = Iter<'a, K, V>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a, K, V> IntoIterator for &'a mut BTreeMap<K, V> {
    type Item = (&'a K, &'a mut V);
    type IntoIter = IterMut<'a, K, V>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

/// A map's entry, vacant or occupied (`BTreeMap::entry`).
pub enum Entry<'a, K, V> {
    Vacant(VacantEntry<'a, K, V>),
    Occupied(OccupiedEntry<'a, K, V>),
}

pub struct VacantEntry<'a, K, V> {
    entries: &'a mut Vec<(K, V)>,
    index: usize,
    key: K,
}

pub struct OccupiedEntry<'a, K, V> {
    entries: &'a mut Vec<(K, V)>,
    index: usize,
}

impl<'a, K, V> Entry<'a, K, V> {
    pub fn or_insert(self, default: V) -> &'a mut V {
        match self {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => e.insert(default),
        }
    }

    pub fn or_insert_with<F: FnOnce() -> V>(self, default: F) -> &'a mut V {
        match self {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => e.insert(default()),
        }
    }

    pub fn or_insert_with_key<F: FnOnce(&K) -> V>(self, default: F) -> &'a mut V {
        match self {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => {
                let value = default(&e.key);
                e.insert(value)
            }
        }
    }

    pub fn or_default(self) -> &'a mut V
    where
        V: Default,
    {
        self.or_insert_with(V::default)
    }

    pub fn and_modify<F: FnOnce(&mut V)>(self, f: F) -> Self {
        match self {
            Entry::Occupied(mut e) => {
                f(e.get_mut());
                Entry::Occupied(e)
            }
            vacant => vacant,
        }
    }

    pub fn key(&self) -> &K {
        match self {
            Entry::Occupied(e) => e.key(),
            Entry::Vacant(e) => e.key(),
        }
    }
}

impl<'a, K, V> VacantEntry<'a, K, V> {
    pub fn key(&self) -> &K {
        &self.key
    }

    pub fn into_key(self) -> K {
        self.key
    }

    pub fn insert(self, value: V) -> &'a mut V {
        self.entries.insert(self.index, (self.key, value));
        &mut self.entries[self.index].1
    }
}

impl<'a, K, V> OccupiedEntry<'a, K, V> {
    pub fn key(&self) -> &K {
        &self.entries[self.index].0
    }

    pub fn get(&self) -> &V {
        &self.entries[self.index].1
    }

    pub fn get_mut(&mut self) -> &mut V {
        &mut self.entries[self.index].1
    }

    pub fn into_mut(self) -> &'a mut V {
        &mut self.entries[self.index].1
    }

    pub fn insert(&mut self, value: V) -> V {
        std::mem::replace(self.get_mut(), value)
    }

    pub fn remove_entry(self) -> (K, V) {
        self.entries.remove(self.index)
    }

    pub fn remove(self) -> V {
        self.remove_entry().1
    }
}

/// An iterator over a map's entries in key order that maps each entry with
/// `$f`: the wrapper type, its slice iterator, its item and the mapping.
macro_rules! entry_iter {
    ($(#[$doc:meta])* $name:ident, $slice_iter:ident, $item:ty, $f:expr) => {
        $(#[$doc])*
        pub struct $name<'a, K, V>(std::slice::$slice_iter<'a, (K, V)>);

        impl<'a, K, V> Iterator for $name<'a, K, V> {
            type Item = $item;

            fn next(&mut self) -> Option<$item> {
                self.0.next().map($f)
            }

            fn size_hint(&self) -> (usize, Option<usize>) {
                self.0.size_hint()
            }
        }

        impl<'a, K, V> DoubleEndedIterator for $name<'a, K, V> {
            fn next_back(&mut self) -> Option<$item> {
                self.0.next_back().map($f)
            }
        }

        impl<K, V> ExactSizeIterator for $name<'_, K, V> {}
        impl<K, V> FusedIterator for $name<'_, K, V> {}
    };
}

entry_iter!(
    /// Iterates a map's entries in key order.
    Iter, Iter, (&'a K, &'a V), |(k, v): &'a (K, V)| (k, v)
);
entry_iter!(
    /// Iterates a map's entries in key order, values mutable.
    IterMut, IterMut, (&'a K, &'a mut V), |(k, v): &'a mut (K, V)| (&*k, v)
);
entry_iter!(
    /// Iterates a map's keys in order.
    Keys, Iter, &'a K, |(k, _): &'a (K, V)| k
);
entry_iter!(
    /// Iterates a map's values in key order.
    Values, Iter, &'a V, |(_, v): &'a (K, V)| v
);
entry_iter!(
    /// Iterates a map's values in key order, mutable.
    ValuesMut, IterMut, &'a mut V, |(_, v): &'a mut (K, V)| v
);

impl<K, V> Clone for Iter<'_, K, V> {
    fn clone(&self) -> Self {
        Iter(self.0.clone())
    }
}

impl<K: serde::Serialize, V: serde::Serialize> serde::Serialize for BTreeMap<K, V> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

impl<'de, K: serde::Deserialize<'de> + Ord, V: serde::Deserialize<'de>> serde::Deserialize<'de> for BTreeMap<K, V> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MapVisitor<K, V>(std::marker::PhantomData<(K, V)>);

        impl<'de, K: serde::Deserialize<'de> + Ord, V: serde::Deserialize<'de>> serde::de::Visitor<'de> for MapVisitor<K, V> {
            type Value = BTreeMap<K, V>;

            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter.write_str("a map")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
                let mut map = BTreeMap::new();
                while let Some((k, v)) = access.next_entry()? {
                    map.insert(k, v);
                }
                Ok(map)
            }
        }

        deserializer.deserialize_map(MapVisitor(std::marker::PhantomData))
    }
}

// ------------------------------------------------------------------ set

/// An ordered set: items sorted, each once.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BTreeSet<T> {
    items: Vec<T>,
}

impl<T> Default for BTreeSet<T> {
    fn default() -> Self {
        BTreeSet::new()
    }
}

impl<T: fmt::Debug> fmt::Debug for BTreeSet<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl<T> BTreeSet<T> {
    pub const fn new() -> Self {
        BTreeSet { items: Vec::new() }
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn clear(&mut self) {
        self.items.clear();
    }

    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.items.iter()
    }

    pub fn first(&self) -> Option<&T> {
        self.items.first()
    }

    pub fn last(&self) -> Option<&T> {
        self.items.last()
    }

    pub fn pop_first(&mut self) -> Option<T> {
        if self.items.is_empty() {
            None
        } else {
            Some(self.items.remove(0))
        }
    }

    pub fn pop_last(&mut self) -> Option<T> {
        self.items.pop()
    }

    /// Keeps the items for which `f` is true, visiting them in order.
    pub fn retain<F: FnMut(&T) -> bool>(&mut self, f: F) {
        self.items.retain(f);
    }
}

impl<T: Ord> BTreeSet<T> {
    fn find<Q: ?Sized + Ord>(&self, value: &Q) -> Result<usize, usize>
    where
        T: Borrow<Q>,
    {
        self.items.binary_search_by(|x| x.borrow().cmp(value))
    }

    pub fn contains<Q: ?Sized + Ord>(&self, value: &Q) -> bool
    where
        T: Borrow<Q>,
    {
        self.find(value).is_ok()
    }

    pub fn get<Q: ?Sized + Ord>(&self, value: &Q) -> Option<&T>
    where
        T: Borrow<Q>,
    {
        self.find(value).ok().map(|i| &self.items[i])
    }

    /// Adds `value`; false (and the set unchanged) when it was there.
    pub fn insert(&mut self, value: T) -> bool {
        match self.find(&value) {
            Ok(_) => false,
            Err(i) => {
                self.items.insert(i, value);
                true
            }
        }
    }

    pub fn remove<Q: ?Sized + Ord>(&mut self, value: &Q) -> bool
    where
        T: Borrow<Q>,
    {
        self.take(value).is_some()
    }

    pub fn take<Q: ?Sized + Ord>(&mut self, value: &Q) -> Option<T>
    where
        T: Borrow<Q>,
    {
        match self.find(value) {
            Ok(i) => Some(self.items.remove(i)),
            Err(_) => None,
        }
    }

    /// The items in `range`, in order (none when its start is after its end).
    pub fn range<K: ?Sized + Ord, R: RangeBounds<K>>(&self, range: R) -> std::slice::Iter<'_, T>
    where
        T: Borrow<K>,
    {
        let (start, end) = bounds(&self.items, &range, |x| x.borrow());
        self.items[start..end].iter()
    }

    pub fn is_subset(&self, other: &BTreeSet<T>) -> bool {
        self.items.iter().all(|x| other.contains(x))
    }

    pub fn is_superset(&self, other: &BTreeSet<T>) -> bool {
        other.is_subset(self)
    }

    pub fn is_disjoint(&self, other: &BTreeSet<T>) -> bool {
        !self.items.iter().any(|x| other.contains(x))
    }

    /// The items in both, in order.
    pub fn intersection<'a>(&'a self, other: &'a BTreeSet<T>) -> impl Iterator<Item = &'a T> + 'a {
        self.items.iter().filter(move |x| other.contains(*x))
    }

    /// The items of `self` not in `other`, in order.
    pub fn difference<'a>(&'a self, other: &'a BTreeSet<T>) -> impl Iterator<Item = &'a T> + 'a {
        self.items.iter().filter(move |x| !other.contains(*x))
    }

    /// The items in either, in order, each once.
    pub fn union<'a>(&'a self, other: &'a BTreeSet<T>) -> impl Iterator<Item = &'a T> + 'a {
        let mut a = self.items.iter().peekable();
        let mut b = other.items.iter().peekable();
        std::iter::from_fn(move || match (a.peek(), b.peek()) {
            (Some(x), Some(y)) => match x.cmp(y) {
                std::cmp::Ordering::Less => a.next(),
                std::cmp::Ordering::Greater => b.next(),
                std::cmp::Ordering::Equal => {
                    b.next();
                    a.next()
                }
            },
            (Some(_), None) => a.next(),
            (None, _) => b.next(),
        })
    }
}

impl<T: Ord> FromIterator<T> for BTreeSet<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut set = BTreeSet::new();
        set.extend(iter);
        set
    }
}

impl<T: Ord> Extend<T> for BTreeSet<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        for x in iter {
            self.insert(x);
        }
    }
}

impl<'a, T: Ord + Copy + 'a> Extend<&'a T> for BTreeSet<T> {
    fn extend<I: IntoIterator<Item = &'a T>>(&mut self, iter: I) {
        for x in iter {
            self.insert(*x);
        }
    }
}

impl<T: Ord, const N: usize> From<[T; N]> for BTreeSet<T> {
    fn from(items: [T; N]) -> Self {
        items.into_iter().collect()
    }
}

impl<T> IntoIterator for BTreeSet<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

impl<'a, T> IntoIterator for &'a BTreeSet<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

impl<T: serde::Serialize> serde::Serialize for BTreeSet<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de, T: serde::Deserialize<'de> + Ord> serde::Deserialize<'de> for BTreeSet<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SeqVisitor<T>(std::marker::PhantomData<T>);

        impl<'de, T: serde::Deserialize<'de> + Ord> serde::de::Visitor<'de> for SeqVisitor<T> {
            type Value = BTreeSet<T>;

            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter.write_str("a sequence")
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
                let mut set = BTreeSet::new();
                while let Some(x) = access.next_element()? {
                    set.insert(x);
                }
                Ok(set)
            }
        }

        deserializer.deserialize_seq(SeqVisitor(std::marker::PhantomData))
    }
}

/// How many items a [`CowVec`] keeps in one shared chunk.
const COW_CHUNK: usize = 64;

/// A vector that a copy shares instead of duplicating: its items sit in
/// reference-counted chunks of [`COW_CHUNK`], and a chunk is copied only when
/// a vector that shares it changes one of its items. Step back keeps copies
/// of the whole simulation, and a list that grows with the run (a
/// producer's records, a log segment's chunks) would otherwise be copied
/// whole into each.
pub struct CowVec<T> {
    /// Every chunk but the last holds exactly [`COW_CHUNK`] items; the
    /// last holds at least one.
    chunks: Vec<std::sync::Arc<Vec<T>>>,
}

/// A [`CowVec`]'s items in order.
pub struct CowIter<'a, T> {
    chunks: std::slice::Iter<'a, std::sync::Arc<Vec<T>>>,
    items: std::slice::Iter<'a, T>,
}

impl<'a, T> Iterator for CowIter<'a, T> {
    type Item = &'a T;

    fn next(&mut self) -> Option<&'a T> {
        loop {
            if let Some(item) = self.items.next() {
                return Some(item);
            }
            self.items = self.chunks.next()?.iter();
        }
    }
}

impl<T> Clone for CowVec<T> {
    fn clone(&self) -> Self {
        CowVec { chunks: self.chunks.clone() }
    }
}

impl<T> Default for CowVec<T> {
    fn default() -> Self {
        CowVec::new()
    }
}

impl<T> CowVec<T> {
    pub const fn new() -> Self {
        CowVec { chunks: Vec::new() }
    }

    pub fn len(&self) -> usize {
        self.chunks.last().map_or(0, |last| (self.chunks.len() - 1) * COW_CHUNK + last.len())
    }

    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    pub fn get(&self, index: usize) -> Option<&T> {
        self.chunks.get(index / COW_CHUNK)?.get(index % COW_CHUNK)
    }

    pub fn last(&self) -> Option<&T> {
        self.chunks.last()?.last()
    }

    /// The index of the first item for which `pred` is false, the items
    /// being partitioned by it (as `slice::partition_point`).
    pub fn partition_point(&self, pred: impl Fn(&T) -> bool) -> usize {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.get(mid).is_some_and(&pred) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// How many shared chunks hold the items: what a copy duplicates is a
    /// pointer to each.
    pub fn chunk_count(&self) -> usize {
        self.chunks.len()
    }

    pub fn iter(&self) -> CowIter<'_, T> {
        CowIter { chunks: self.chunks.iter(), items: [].iter() }
    }

    /// The items from `index` on, found without walking those before it.
    pub fn iter_from(&self, index: usize) -> CowIter<'_, T> {
        let mut chunks = self.chunks.get(index / COW_CHUNK..).unwrap_or_default().iter();
        let items = chunks.next().and_then(|c| c.get(index % COW_CHUNK..)).unwrap_or_default().iter();
        CowIter { chunks, items }
    }

    /// Whether `self` and `other` hold the same chunks in memory.
    pub fn shares_chunks_with(&self, other: &CowVec<T>) -> bool {
        self.chunks.len() == other.chunks.len()
            && self.chunks.iter().zip(&other.chunks).all(|(a, b)| std::sync::Arc::ptr_eq(a, b))
    }
}

impl<T: Clone> CowVec<T> {
    pub fn push(&mut self, item: T) {
        if self.chunks.last().is_none_or(|last| last.len() == COW_CHUNK) {
            self.chunks.push(std::sync::Arc::new(Vec::with_capacity(COW_CHUNK)));
        }
        let Some(last) = self.chunks.last_mut() else { unreachable!() };
        std::sync::Arc::make_mut(last).push(item);
    }

    /// Puts `item` at `index`, moving those after it one place on. Only the
    /// chunks from `index`'s to the last are copied if shared, so an
    /// insertion near the end costs about as little as a push.
    pub fn insert(&mut self, index: usize, item: T) {
        if index >= self.len() {
            return self.push(item);
        }
        let (mut carry, mut at) = (item, index % COW_CHUNK);
        for chunk in self.chunks.iter_mut().skip(index / COW_CHUNK) {
            let chunk = std::sync::Arc::make_mut(chunk);
            // A full chunk hands its last item on before taking one, so it
            // never grows past the capacity it was made with.
            let out = if chunk.len() == COW_CHUNK { chunk.pop() } else { None };
            chunk.insert(at, carry);
            at = 0;
            match out {
                Some(next) => carry = next,
                None => return,
            }
        }
        self.push(carry);
    }

    /// Takes out the item at `index`, moving those after it one place back
    /// (copying every chunk from `index`'s on if shared).
    pub fn remove(&mut self, index: usize) -> T {
        let first = index / COW_CHUNK;
        let Some(chunk) = self.chunks.get_mut(first) else { unreachable!() };
        let removed = std::sync::Arc::make_mut(chunk).remove(index % COW_CHUNK);
        for c in first + 1..self.chunks.len() {
            let moved = std::sync::Arc::make_mut(&mut self.chunks[c]).remove(0);
            std::sync::Arc::make_mut(&mut self.chunks[c - 1]).push(moved);
        }
        if self.chunks.last().is_some_and(|c| c.is_empty()) {
            self.chunks.pop();
        }
        removed
    }

    /// Keeps the first `len` items.
    pub fn truncate(&mut self, len: usize) {
        if len >= self.len() {
            return;
        }
        self.chunks.truncate(len.div_ceil(COW_CHUNK));
        if let Some(last) = self.chunks.last_mut() {
            // The last chunk kept holds the items from its start to `len`.
            std::sync::Arc::make_mut(last).truncate((len - 1) % COW_CHUNK + 1);
        }
    }

    /// The item, copying its chunk first if another vector shares it.
    pub fn get_mut(&mut self, index: usize) -> Option<&mut T> {
        let chunk = self.chunks.get_mut(index / COW_CHUNK)?;
        std::sync::Arc::make_mut(chunk).get_mut(index % COW_CHUNK)
    }

    pub fn to_vec(&self) -> Vec<T> {
        self.iter().cloned().collect()
    }
}

impl<T> Index<usize> for CowVec<T> {
    type Output = T;

    fn index(&self, index: usize) -> &T {
        // Callers index records they were given; a plain panic, without
        // formatting, keeps the page small.
        let Some(item) = self.get(index) else { unreachable!() };
        item
    }
}

impl<T: Clone> std::ops::IndexMut<usize> for CowVec<T> {
    fn index_mut(&mut self, index: usize) -> &mut T {
        let Some(item) = self.get_mut(index) else { unreachable!() };
        item
    }
}

impl<'a, T> IntoIterator for &'a CowVec<T> {
    type Item = &'a T;
    type IntoIter = CowIter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: fmt::Debug> fmt::Debug for CowVec<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: PartialEq> PartialEq for CowVec<T> {
    /// Shared chunks are equal without looking at their items, so comparing
    /// a view with the last one drawn costs little.
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len()
            && self.chunks.iter().zip(&other.chunks).all(|(a, b)| std::sync::Arc::ptr_eq(a, b) || a == b)
    }
}

impl<T: serde::Serialize> serde::Serialize for CowVec<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<T: Clone> FromIterator<T> for CowVec<T> {
    fn from_iter<I: IntoIterator<Item = T>>(items: I) -> Self {
        let mut v = CowVec::new();
        for item in items {
            v.push(item);
        }
        v
    }
}

impl<'de, T: serde::Deserialize<'de> + Clone> serde::Deserialize<'de> for CowVec<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Vec::<T>::deserialize(deserializer)?.into_iter().collect())
    }
}

impl<T: Eq> Eq for CowVec<T> {}

#[cfg(test)]
mod tests {

    /// Random pushes, insertions, removals and truncations, with copies
    /// taken along the way, leave every vector holding what a plain `Vec`
    /// given the same operations holds.
    #[test]
    fn random_edits_match_a_plain_vector_and_leave_copies_alone() {
        use super::CowVec;
        use crate::sim::rng::SimRng;
        for seed in 0..40u64 {
            let mut rng = SimRng::new(seed);
            let (mut ours, mut model): (CowVec<u32>, Vec<u32>) = (CowVec::new(), Vec::new());
            let mut copies: Vec<(CowVec<u32>, Vec<u32>)> = Vec::new();
            for n in 0..2000u32 {
                let len = model.len() as u64;
                match rng.below(12) {
                    0 if len > 0 => {
                        let at = rng.below(len) as usize;
                        assert_eq!(ours.remove(at), model.remove(at), "seed {seed}");
                    }
                    1 => {
                        let keep = rng.below(len + 1) as usize;
                        ours.truncate(keep);
                        model.truncate(keep);
                    }
                    2 => copies.push((ours.clone(), model.clone())),
                    3..=6 => {
                        let at = rng.below(len + 1) as usize;
                        ours.insert(at, n);
                        model.insert(at, n);
                    }
                    _ => {
                        ours.push(n);
                        model.push(n);
                    }
                }
                assert_eq!(ours.len(), model.len(), "seed {seed}");
            }
            assert_eq!(ours.to_vec(), model, "seed {seed}");
            // Indexing relies on every chunk but the last being full.
            assert!((0..model.len() + 2).all(|i| ours.get(i) == model.get(i)), "seed {seed}");
            for from in [0, 1, 63, 64, 65, model.len().saturating_sub(1), model.len(), model.len() + 5] {
                assert!(ours.iter_from(from).eq(model.iter().skip(from)), "seed {seed}, from {from}");
            }
            for (copy, was) in &copies {
                assert_eq!(&copy.to_vec(), was, "seed {seed}");
            }
        }
    }

    #[test]
    fn a_cow_vec_copy_shares_its_chunks_until_one_side_changes_an_item() {
        use super::CowVec;
        let mut a: CowVec<String> = CowVec::new();
        for n in 0..1000 {
            a.push(n.to_string());
        }
        let mut b = a.clone();
        assert!(b.shares_chunks_with(&a));
        b[5] = "changed".into();
        b.push("new".into());
        assert_eq!((a.len(), b.len()), (1000, 1001));
        assert_eq!((&a[5][..], &b[5][..], &a[999][..]), ("5", "changed", "999"));
        assert_eq!(b.iter().nth(1000).map(|s| &s[..]), Some("new"));
        assert_eq!(a.to_vec(), (0..1000).map(|n| n.to_string()).collect::<Vec<_>>());
        // Only the changed chunk and the last one were copied.
        let shared = a.chunks.iter().zip(&b.chunks).filter(|(x, y)| std::sync::Arc::ptr_eq(x, y)).count();
        assert_eq!(shared, a.chunks.len() - 2);
    }

    use super::{BTreeMap, BTreeSet};

    #[test]
    fn sorting_is_stable_and_matches_std() {
        let mut seed = 7u32;
        for len in 0..40 {
            let items: Vec<(u32, usize)> = (0..len)
                .map(|i| {
                    seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    ((seed >> 16) % 5, i)
                })
                .collect();
            let mut ours = items.clone();
            let mut std_sorted = items.clone();
            super::sort_by_key(&mut ours, |x| x.0);
            std_sorted.sort_by_key(|x| x.0);
            assert_eq!(ours, std_sorted);
            super::sort_by(&mut ours, |a, b| b.0.cmp(&a.0));
            std_sorted.sort_by(|a, b| b.0.cmp(&a.0));
            assert_eq!(ours, std_sorted);
        }
    }

    #[test]
    fn a_map_iterates_and_ranges_as_std_does() {
        let keys = [5u32, 1, 9, 3, 7, 3, 11, 0];
        let mut ours = BTreeMap::new();
        let mut std_map = std::collections::BTreeMap::new();
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(ours.insert(*k, i), std_map.insert(*k, i));
        }
        assert!(ours.iter().eq(std_map.iter()));
        assert!(ours.range(3..9).eq(std_map.range(3..9)));
        assert!(ours.range(..=7).rev().eq(std_map.range(..=7).rev()));
        assert!(ours.range((std::ops::Bound::Excluded(3), std::ops::Bound::Unbounded)).eq(std_map.range((std::ops::Bound::Excluded(3), std::ops::Bound::Unbounded))));
        assert_eq!(ours.remove(&9), std_map.remove(&9));
        assert_eq!(ours.remove(&9), std_map.remove(&9));
        *ours.entry(4).or_default() += 1;
        *std_map.entry(4).or_default() += 1;
        ours.retain(|k, _| k % 2 == 1 || *k == 4);
        std_map.retain(|k, _| k % 2 == 1 || *k == 4);
        assert!(ours.iter().eq(std_map.iter()));
        assert_eq!(format!("{ours:?}"), format!("{std_map:?}"));
        assert_eq!(ours.pop_first(), std_map.pop_first());
        assert_eq!(ours.pop_last(), std_map.pop_last());
        let collected: BTreeMap<u32, usize> = [(2, 0), (1, 1), (2, 2)].into_iter().collect();
        assert!(collected.iter().eq(std::collections::BTreeMap::from([(2, 0), (1, 1), (2, 2)]).iter()));
    }

    #[test]
    fn a_set_iterates_as_std_does() {
        let ours: BTreeSet<i32> = [3, 1, 2, 3, -1].into_iter().collect();
        let std_set: std::collections::BTreeSet<i32> = [3, 1, 2, 3, -1].into_iter().collect();
        assert!(ours.iter().eq(std_set.iter()));
        let other: BTreeSet<i32> = [2, 5].into();
        let std_other: std::collections::BTreeSet<i32> = [2, 5].into();
        assert!(ours.union(&other).eq(std_set.union(&std_other)));
        assert!(ours.intersection(&other).eq(std_set.intersection(&std_other)));
        assert!(ours.difference(&other).eq(std_set.difference(&std_other)));
        assert_eq!(format!("{ours:?}"), format!("{std_set:?}"));
        assert_eq!(
            serde_json::to_string(&ours).unwrap(),
            serde_json::to_string(&std_set).unwrap()
        );
    }
}
