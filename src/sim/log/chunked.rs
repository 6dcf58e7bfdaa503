//! Bytes that a copy shares instead of duplicating: the store under a log
//! segment's `.log` and its two indexes.
//!
//! Step back keeps copies of the whole simulation. If every copy held its
//! own `Vec<u8>` of each log, memory would grow with the log's size times
//! the number of copies, so it grew quadratically in a long run. Here the
//! bytes are written into a short private tail; once the tail reaches
//! [`CHUNK_BYTES`] (less for an index) it is sealed into an immutable, reference-counted chunk,
//! and a copy of the store copies only the tail and the list of chunks.
//! The list of chunks is itself a [`CowVec`], shared in groups of 64, so
//! the list a copy duplicates stays short too: a copy costs one tail and a
//! pointer for every 64 chunks (256 KiB of log).
//!
//! Bytes go in as units (a record batch, an index entry) that are never
//! split between two chunks, so every unit can be read as one slice.

use crate::sim::collections::CowVec;
use std::fmt;
use std::sync::Arc;

/// How large a log's private tail grows before it is sealed: a copy of the
/// store duplicates at most about this many bytes of data.
pub const CHUNK_BYTES: usize = 4096;

/// The same for an index, whose entries (8 and 12 B, one per 4 KiB of log)
/// are few: a 4 KiB tail would hold about as much as the log's, so every
/// snapshot would copy three tails of that size for each replica. Sealing
/// costs an allocation, which indexes need rarely; a log's tail seals at
/// [`CHUNK_BYTES`], since sealing it more often made the events benchmark
/// 4 % slower in instructions.
pub const INDEX_CHUNK_BYTES: usize = 512;

/// A sealed, immutable run of whole units, and where it starts.
#[derive(Clone)]
struct Chunk {
    start: u32,
    bytes: Arc<[u8]>,
}

impl Chunk {
    fn end(&self) -> u32 {
        self.start + self.bytes.len() as u32
    }
}

/// The store. Positions are `u32`, as a segment's are.
#[derive(Clone)]
pub struct ChunkedBytes {
    /// The sealed chunks, oldest first, themselves kept in shared groups.
    chunks: CowVec<Chunk>,
    /// Where the tail starts: the length of everything sealed.
    tail_start: u32,
    /// The bytes written since the last seal.
    tail: Vec<u8>,
    /// How long the tail grows before it is sealed.
    seal_at: u32,
}

impl ChunkedBytes {
    /// A store for a log's batches, sealed every [`CHUNK_BYTES`].
    pub const fn new() -> ChunkedBytes {
        ChunkedBytes::sealed_every(CHUNK_BYTES)
    }

    /// A store for an index's entries, sealed every [`INDEX_CHUNK_BYTES`].
    pub const fn for_index() -> ChunkedBytes {
        ChunkedBytes::sealed_every(INDEX_CHUNK_BYTES)
    }

    const fn sealed_every(bytes: usize) -> ChunkedBytes {
        ChunkedBytes { chunks: CowVec::new(), tail_start: 0, tail: Vec::new(), seal_at: bytes as u32 }
    }

    /// The bytes from `start` to `end`, borrowed.
    pub fn slice(&self, start: u32, end: u32) -> Slice<'_> {
        Slice { store: self, start, end: end.max(start) }
    }

    pub fn len(&self) -> u32 {
        self.tail_start + self.tail.len() as u32
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends one unit, which stays whole in one chunk, and seals the tail
    /// once it has reached the store's seal size ([`CHUNK_BYTES`] for a log,
    /// [`INDEX_CHUNK_BYTES`] for an index).
    pub fn push(&mut self, unit: &[u8]) {
        if self.tail.capacity() == 0 {
            self.tail.reserve_exact((self.seal_at as usize).max(unit.len()));
        }
        self.tail.extend_from_slice(unit);
        if self.tail.len() >= self.seal_at as usize {
            self.seal();
        }
    }

    /// Seals whatever the tail holds, so copies share all of it, and frees
    /// the tail's room: a segment that stops being active does this, as
    /// nothing more is appended, and the next push reserves room again.
    pub fn seal(&mut self) {
        if self.tail.is_empty() {
            return;
        }
        let chunk = Chunk { start: self.tail_start, bytes: Arc::from(&self.tail[..]) };
        self.tail_start = chunk.end();
        self.tail = Vec::new();
        self.chunks.push(chunk);
    }

    /// Cuts the store to `len` bytes, which must fall on a unit boundary.
    /// Chunks wholly below the cut stay shared; the one the cut falls in is
    /// copied up to the cut into a new private tail.
    pub fn truncate(&mut self, len: u32) {
        if len >= self.tail_start {
            self.tail.truncate((len - self.tail_start) as usize);
            return;
        }
        // The chunks starting below the cut stay; the last of them may hold it.
        let c = self.chunks.partition_point(|chunk| chunk.start < len);
        self.tail.clear();
        self.tail_start = len;
        let held = c.checked_sub(1).and_then(|last| self.chunks.get(last)).filter(|last| last.end() > len);
        if let Some(last) = held {
            self.tail.extend_from_slice(&last.bytes[..(len - last.start) as usize]);
            self.tail_start = last.start;
            self.chunks.truncate(c - 1);
        } else {
            self.chunks.truncate(c);
        }
    }

    /// The contiguous piece (a chunk or the tail) holding position `at`:
    /// where it starts and its bytes. None at or past the end.
    fn piece(&self, at: u32) -> Option<(u32, &[u8])> {
        if at >= self.tail_start {
            return (at < self.len()).then_some((self.tail_start, &self.tail[..]));
        }
        // Sealed chunks start at 0, so one starts at or below `at`.
        let chunk = self.chunks.get(self.chunks.partition_point(|chunk| chunk.start <= at) - 1)?;
        Some((chunk.start, &chunk.bytes[..]))
    }

    /// The bytes from `at` to the end of the piece that holds it: whole
    /// units, so a reader of units can go through them and ask again from
    /// where they end. Empty at or past the end.
    pub fn run_from(&self, at: u32) -> &[u8] {
        match self.piece(at) {
            Some((start, bytes)) => &bytes[(at - start) as usize..],
            None => &[],
        }
    }

    /// The `len` bytes at `at`, when they lie in one piece, as one unit
    /// always does.
    pub fn get(&self, at: u32, len: u32) -> Option<&[u8]> {
        self.run_from(at).get(..len as usize)
    }

    /// Copies the bytes from `start` to `end` out, across pieces.
    pub fn copy_range(&self, start: u32, end: u32) -> Vec<u8> {
        let mut out = Vec::with_capacity(end.saturating_sub(start) as usize);
        let mut at = start;
        while at < end {
            let run = self.run_from(at);
            if run.is_empty() {
                break;
            }
            let take = run.len().min((end - at) as usize);
            out.extend_from_slice(&run[..take]);
            at += take as u32;
        }
        out
    }

    /// Every byte, copied into one vector.
    pub fn to_vec(&self) -> Vec<u8> {
        self.copy_range(0, self.len())
    }

    /// Bytes allocated beyond the stored ones and the shared chunks: the
    /// tail's spare capacity and the list of chunks.
    pub fn overhead_bytes(&self) -> u64 {
        (self.tail.capacity() - self.tail.len() + self.chunks.len() * std::mem::size_of::<Chunk>()) as u64
    }

    /// The bytes a copy of the store allocates for itself: the tail and a
    /// pointer to each shared group of chunks, not the chunks.
    pub fn private_bytes(&self) -> u64 {
        (self.tail.len() + self.chunks.chunk_count() * std::mem::size_of::<usize>()) as u64
    }

    /// Whether `self` and `other` hold the very same sealed chunks in
    /// memory, not only equal bytes: what a copy shares with its original.
    pub fn shares_chunks_with(&self, other: &ChunkedBytes) -> bool {
        self.chunks.shares_chunks_with(&other.chunks)
    }
}

/// A range of a store, borrowed: what a read holds before it is copied out.
#[derive(Clone, Copy)]
pub struct Slice<'a> {
    store: &'a ChunkedBytes,
    start: u32,
    end: u32,
}

impl Slice<'_> {
    /// A slice of nothing.
    pub fn empty() -> Slice<'static> {
        static NOTHING: ChunkedBytes = ChunkedBytes::new();
        NOTHING.slice(0, 0)
    }

    pub fn len(&self) -> u32 {
        self.end - self.start
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn to_vec(&self) -> Vec<u8> {
        self.store.copy_range(self.start, self.end)
    }
}

impl PartialEq for Slice<'_> {
    fn eq(&self, other: &Slice<'_>) -> bool {
        self.len() == other.len() && self.to_vec() == other.to_vec()
    }
}

impl Eq for Slice<'_> {}

impl fmt::Debug for Slice<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.to_vec())
    }
}

impl Default for ChunkedBytes {
    fn default() -> ChunkedBytes {
        ChunkedBytes::new()
    }
}

impl PartialEq for ChunkedBytes {
    /// Equal bytes are equal stores, however they are chunked.
    fn eq(&self, other: &ChunkedBytes) -> bool {
        self.len() == other.len() && self.to_vec() == other.to_vec()
    }
}

impl Eq for ChunkedBytes {}

impl fmt::Debug for ChunkedBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.to_vec())
    }
}

impl From<Vec<u8>> for ChunkedBytes {
    /// The bytes as one unsealed tail: nothing is known of their units.
    fn from(tail: Vec<u8>) -> ChunkedBytes {
        ChunkedBytes { tail, ..ChunkedBytes::default() }
    }
}

impl serde::Serialize for ChunkedBytes {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_vec().serialize(serializer)
    }
}

impl<'de> serde::Deserialize<'de> for ChunkedBytes {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<ChunkedBytes, D::Error> {
        Vec::<u8>::deserialize(deserializer).map(ChunkedBytes::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::SimRng;

    /// Units of 1 to 300 bytes, each byte telling its unit and place.
    fn unit(n: u32, len: usize) -> Vec<u8> {
        (0..len).map(|i| (n as usize * 31 + i) as u8).collect()
    }

    #[test]
    fn random_pushes_and_truncations_match_a_plain_vector() {
        for seed in 0..40u64 {
            let mut rng = SimRng::new(seed);
            let mut store = ChunkedBytes::new();
            let mut model: Vec<u8> = Vec::new();
            let mut boundaries: Vec<u32> = vec![0];
            let mut copies: Vec<(ChunkedBytes, Vec<u8>)> = Vec::new();
            for n in 0..3000u32 {
                match rng.below(20) {
                    0 => {
                        // Truncate to a random unit boundary.
                        let keep = rng.below(boundaries.len() as u64) as usize;
                        boundaries.truncate(keep + 1);
                        let len = boundaries[keep];
                        store.truncate(len);
                        model.truncate(len as usize);
                    }
                    1 => copies.push((store.clone(), model.clone())),
                    2 => store.seal(),
                    _ => {
                        let u = unit(n, rng.range(1, 300) as usize);
                        store.push(&u);
                        model.extend_from_slice(&u);
                        boundaries.push(model.len() as u32);
                    }
                }
                assert_eq!(store.len() as usize, model.len(), "seed {seed}, step {n}");
            }
            assert_eq!(store.to_vec(), model, "seed {seed}");
            // Every unit reads as one slice.
            for pair in boundaries.windows(2) {
                let (at, len) = (pair[0], pair[1] - pair[0]);
                assert_eq!(store.get(at, len), Some(&model[at as usize..pair[1] as usize]), "seed {seed}, unit at {at}");
            }
            // Copies taken along the way kept their bytes.
            for (copy, bytes) in &copies {
                assert_eq!(&copy.to_vec(), bytes, "seed {seed}");
            }
            let (a, b) = (rng.below(model.len() as u64 + 1) as u32, rng.below(model.len() as u64 + 1) as u32);
            let (start, end) = (a.min(b), a.max(b));
            assert_eq!(store.copy_range(start, end), &model[start as usize..end as usize], "seed {seed}");
        }
    }

    #[test]
    fn a_copy_shares_every_sealed_chunk_and_duplicates_little() {
        for total in [100_000usize, 2_000_000] {
            let mut store = ChunkedBytes::new();
            let mut n = 0;
            while (store.len() as usize) < total {
                store.push(&unit(n, 170));
                n += 1;
            }
            let copy = store.clone();
            assert!(copy.shares_chunks_with(&store));
            // One tail at most, and a pointer for each group of 64 chunks.
            let groups = total / (CHUNK_BYTES * 64) + 1;
            let bound = (CHUNK_BYTES + groups * 8) as u64;
            assert!(copy.private_bytes() <= bound, "{total} bytes: a copy holds {} of its own", copy.private_bytes());
        }
    }

    /// An index's store seals sooner, so a copy of it holds at most a
    /// short tail of entries of its own.
    #[test]
    fn a_copy_of_an_index_store_holds_a_short_tail_of_its_own() {
        let mut store = ChunkedBytes::for_index();
        for n in 0..10_000u32 {
            store.push(&n.to_be_bytes().repeat(2));
        }
        let copy = store.clone();
        assert_eq!(copy.to_vec(), store.to_vec());
        let groups = 80_000 / (INDEX_CHUNK_BYTES * 64) + 1;
        assert!(copy.private_bytes() <= (INDEX_CHUNK_BYTES + groups * 8) as u64, "{}", copy.private_bytes());
        assert!(ChunkedBytes::new().private_bytes() == 0 && ChunkedBytes::default().seal_at == CHUNK_BYTES as u32);
    }

    #[test]
    fn appending_after_a_copy_leaves_the_copy_as_it_was() {
        let mut store = ChunkedBytes::new();
        for n in 0..100 {
            store.push(&unit(n, 100));
        }
        let copy = store.clone();
        let before = copy.to_vec();
        store.push(&unit(100, 100));
        store.truncate(50 * 100);
        store.push(&unit(101, 7));
        assert_eq!(copy.to_vec(), before);
        assert_eq!(store.len(), 50 * 100 + 7);
    }
}
