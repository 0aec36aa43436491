//! The per-stream hash chain: `hash_n = SHA-256(hash_{n-1} || canonical bytes of event n)`,
//! starting from a genesis hash that names the stream, so a chain cannot be moved to another
//! stream and no event can be changed, dropped, reordered or inserted without every later
//! hash changing.

use std::fmt;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::{RecordedEvent, StreamId};

/// A SHA-256 digest, shown and serialised as 64 lower-case hex digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Hash([u8; 32]);

impl Hash {
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        Hash(bytes)
    }

    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }

    /// The hash that precedes a stream's first event.
    pub fn genesis(stream: &StreamId) -> Self {
        let mut digest = Sha256::new();
        digest.update(b"warlog/stream/v1\0");
        digest.update(stream.as_str().as_bytes());
        Hash(digest.finalize().into())
    }

    /// The next link of a chain: SHA-256 of the previous hash followed by the event's
    /// canonical bytes ([`RecordedEvent::canonical_bytes`]).
    pub fn link(previous: &Hash, canonical_event: &[u8]) -> Self {
        let mut digest = Sha256::new();
        digest.update(previous.0);
        digest.update(canonical_event);
        Hash(digest.finalize().into())
    }
}

impl TryFrom<&[u8]> for Hash {
    type Error = String;
    fn try_from(value: &[u8]) -> Result<Self, Self::Error> {
        <[u8; 32]>::try_from(value)
            .map(Hash)
            .map_err(|_| format!("a hash has 32 bytes, not {}", value.len()))
    }
}

impl TryFrom<String> for Hash {
    type Error = String;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        let bytes = hex::decode(&value).map_err(|e| format!("hash {value:?}: {e}"))?;
        Hash::try_from(bytes.as_slice())
    }
}

impl From<Hash> for String {
    fn from(value: Hash) -> Self {
        value.to_hex()
    }
}

impl fmt::Debug for Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Hash({})", self.to_hex())
    }
}

impl fmt::Display for Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

/// Where a stream's chain ends: its version (0 for an empty stream) and the head hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChainHead {
    pub version: u64,
    pub hash: Hash,
}

impl ChainHead {
    pub fn empty(stream: &StreamId) -> Self {
        ChainHead {
            version: 0,
            hash: Hash::genesis(stream),
        }
    }
}

/// The first place where a stored chain does not hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "stream {stream_id} breaks at version {stream_version}{}: {kind}",
    event_id.map(|id| format!(" (event id {id})")).unwrap_or_default()
)]
pub struct ChainBreak {
    pub stream_id: StreamId,
    pub stream_version: u64,
    pub event_id: Option<Uuid>,
    pub kind: Box<ChainBreakKind>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChainBreakKind {
    #[error("belongs to stream {0}")]
    WrongStream(StreamId),
    #[error("expected stream version {expected}")]
    VersionGap { expected: u64 },
    #[error("its previous hash {stored} is not the hash {expected} of the event before it")]
    PreviousHashMismatch { stored: Hash, expected: Hash },
    #[error("its stored hash {stored} does not match its content, which hashes to {computed}")]
    HashMismatch { stored: Hash, computed: Hash },
    #[error("the head a reader held earlier ({held}) is not in the chain, which has {found} at that version")]
    NotAnExtension { held: Hash, found: Hash },
    #[error("the chain ends before the version {held_version} of the head held earlier")]
    Shrunk { held_version: u64 },
}

/// Walks a stream's events in order and checks every link.
#[derive(Debug, Clone)]
pub struct ChainVerifier {
    stream: StreamId,
    head: ChainHead,
}

impl ChainVerifier {
    pub fn new(stream: StreamId) -> Self {
        let head = ChainHead::empty(&stream);
        ChainVerifier { stream, head }
    }

    pub fn head(&self) -> ChainHead {
        self.head
    }

    /// Checks the next event of the stream.
    pub fn push(&mut self, event: &RecordedEvent) -> Result<(), ChainBreak> {
        let fail = |kind| ChainBreak {
            stream_id: self.stream.clone(),
            stream_version: event.stream_version,
            event_id: Some(event.event_id),
            kind: Box::new(kind),
        };
        if event.stream_id != self.stream {
            return Err(fail(ChainBreakKind::WrongStream(event.stream_id.clone())));
        }
        let expected = self.head.version + 1;
        if event.stream_version != expected {
            return Err(fail(ChainBreakKind::VersionGap { expected }));
        }
        if event.prev_hash != self.head.hash {
            return Err(fail(ChainBreakKind::PreviousHashMismatch {
                stored: event.prev_hash,
                expected: self.head.hash,
            }));
        }
        let computed = Hash::link(&self.head.hash, &event.canonical_bytes());
        if computed != event.hash {
            return Err(fail(ChainBreakKind::HashMismatch {
                stored: event.hash,
                computed,
            }));
        }
        self.head = ChainHead {
            version: expected,
            hash: computed,
        };
        Ok(())
    }
}

/// Recomputes every link of a stream's events, in order, from its genesis: for streams
/// built outside the store (fixtures, imports; and in tests, the forger who changed an
/// event and wants the chain to hold again).
pub fn relink(events: &mut [RecordedEvent]) {
    let Some(first) = events.first() else { return };
    let mut previous = Hash::genesis(&first.stream_id);
    for event in events {
        event.prev_hash = previous;
        event.hash = Hash::link(&previous, &event.canonical_bytes());
        previous = event.hash;
    }
}

/// Verifies a whole stream from its first event and returns its head.
pub fn verify_chain<'a>(
    stream: &StreamId,
    events: impl IntoIterator<Item = &'a RecordedEvent>,
) -> Result<ChainHead, ChainBreak> {
    let mut verifier = ChainVerifier::new(stream.clone());
    for event in events {
        verifier.push(event)?;
    }
    Ok(verifier.head())
}

/// Verifies a whole stream and that it extends a head an auditor saw earlier: the log only
/// grew since then.
pub fn verify_extends<'a>(
    stream: &StreamId,
    held: ChainHead,
    events: impl IntoIterator<Item = &'a RecordedEvent>,
) -> Result<ChainHead, ChainBreak> {
    let mut verifier = ChainVerifier::new(stream.clone());
    let mut checked_held = held.version == 0 && held.hash == Hash::genesis(stream);
    for event in events {
        verifier.push(event)?;
        let head = verifier.head();
        if head.version == held.version {
            if head.hash != held.hash {
                return Err(ChainBreak {
                    stream_id: stream.clone(),
                    stream_version: head.version,
                    event_id: Some(event.event_id),
                    kind: Box::new(ChainBreakKind::NotAnExtension {
                        held: held.hash,
                        found: head.hash,
                    }),
                });
            }
            checked_held = true;
        }
    }
    let head = verifier.head();
    if !checked_held {
        return Err(ChainBreak {
            stream_id: stream.clone(),
            stream_version: head.version,
            event_id: None,
            kind: Box::new(ChainBreakKind::Shrunk {
                held_version: held.version,
            }),
        });
    }
    Ok(head)
}
