//! Following one request: which trace events are its own, which stages it
//! has passed through on each broker, and, for a produce that waited in
//! purgatory, which follower fetches released it. Everything is read from
//! the trace, the only record of where a request has been.

use crate::sim::ids::{NodeId, RequestId, TopicPartition};
use crate::sim::trace::{Direction, Stage, TraceEvent, TraceKind};
use crate::sim::collections::{BTreeMap, BTreeSet};

pub use crate::sim::trace::events_of;

/// Did these events move the request: a hop between stages, or a send onto
/// the network?
pub fn moved(events: &[TraceEvent], request: RequestId) -> bool {
    events.iter().any(|e| match &e.kind {
        TraceKind::Hop { request: r, .. } | TraceKind::Sent { request: r, .. } => *r == request,
        _ => false,
    })
}

/// Has the request's path ended: its response reached the client (or the
/// follower's fetcher), or acks=0 meant no response at all?
pub fn finished(trace: &[TraceEvent], request: RequestId) -> bool {
    trace.iter().rev().filter(|e| e.kind.request() == Some(request)).any(|e| {
        matches!(
            e.kind,
            TraceKind::Hop { direction: Direction::Response, to: Stage::Client | Stage::ReplicaFetcher(_), .. }
                | TraceKind::NoResponse { .. }
                | TraceKind::ConnectionClosed { .. }
        )
    })
}

/// The stages of each broker's request path the request has been in, from
/// its hops there.
pub fn visited(trace: &[TraceEvent], request: RequestId) -> BTreeMap<u32, BTreeSet<Stage>> {
    let mut out: BTreeMap<u32, BTreeSet<Stage>> = BTreeMap::new();
    for e in trace {
        if let (NodeId::Broker(b), TraceKind::Hop { request: r, from, to, .. }) = (e.node, &e.kind) {
            if *r == request {
                let stages = out.entry(b).or_default();
                for s in [from, to] {
                    if in_pipeline(*s) {
                        stages.insert(*s);
                    }
                }
            }
        }
    }
    out
}

/// Is this stage one of the boxes a broker draws?
fn in_pipeline(stage: Stage) -> bool {
    !matches!(stage, Stage::Client | Stage::Wire | Stage::ReplicaFetcher(_))
}

/// A produce's release from purgatory: in the step it completed, the high
/// watermark moved, because follower fetches reported the followers' log
/// end offsets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Release {
    pub step: u64,
    pub broker: u32,
    /// Each high watermark that moved in that step: (partition, from, to).
    pub high_watermarks: Vec<(TopicPartition, i64, i64)>,
    /// The follower Fetch requests handled in that step.
    pub fetches: Vec<RequestId>,
}

/// How the request left purgatory, if it did so before its timeout.
pub fn release(trace: &[TraceEvent], request: RequestId) -> Option<Release> {
    let done = trace.iter().find(|e| {
        matches!(e.kind, TraceKind::PurgatoryCompleted { request: r, expired: false, .. } if r == request)
    })?;
    let same_step = || trace.iter().filter(|e| e.step == done.step && e.node == done.node);
    let high_watermarks: Vec<(TopicPartition, i64, i64)> = same_step()
        .filter_map(|e| match &e.kind {
            TraceKind::HighWatermarkAdvanced { partition, from, to, .. } => Some((partition.clone(), *from, *to)),
            _ => None,
        })
        .collect();
    let mut fetches: Vec<RequestId> = Vec::new();
    for e in same_step() {
        if let TraceKind::Hop { request: r, .. } | TraceKind::LogRead { request: r, .. } = &e.kind {
            if matches!(r.client, NodeId::Broker(_)) && !fetches.contains(r) {
                fetches.push(*r);
            }
        }
    }
    let NodeId::Broker(broker) = done.node else {
        return None;
    };
    // A completion without a high watermark move (a fetch's min bytes, say)
    // was not a follower's doing.
    if high_watermarks.is_empty() {
        return None;
    }
    Some(Release { step: done.step, broker, high_watermarks, fetches })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::session::Session;
    use crate::sim::simulation::Command;

    fn produce() -> Command {
        Command::Produce {
            client: 0,
            topic: "orders".into(),
            key: Some("user-42".into()),
            value: Some("v".into()),
            headers: vec![],
            partition: None,
            timestamp_ms: None,
        }
    }

    /// The first Produce request of client-0 in the trace.
    fn the_produce(s: &Session) -> RequestId {
        s.sim()
            .trace()
            .iter()
            .find_map(|e| match &e.kind {
                TraceKind::Hop { request, api: crate::sim::protocol::ApiKey::Produce, .. } => Some(*request),
                _ => None,
            })
            .expect("a produce hop")
    }

    #[test]
    fn an_acks_all_produce_is_followed_to_its_release_and_its_response() {
        let mut s = Session::default();
        s.command(produce()).unwrap();
        // Step until the produce has left the client.
        while !s.sim().trace().iter().any(|e| matches!(e.kind, TraceKind::Hop { api: crate::sim::protocol::ApiKey::Produce, .. })) {
            assert!(s.step());
        }
        let id = the_produce(&s);
        let mut hops = 0;
        while !finished(s.sim().trace(), id) {
            let (_, moved) = s.step_until(10_000, |events| moved(events, id));
            assert!(moved, "the produce kept moving until its response");
            hops += 1;
        }
        assert!(hops >= 10, "every hop is one Next hop: {hops}");
        let trace = s.sim().trace();
        let release = release(trace, id).expect("acks=all waits for the followers");
        assert!(!release.fetches.is_empty());
        assert!(release.fetches.iter().all(|r| matches!(r.client, NodeId::Broker(_))));
        assert_eq!(release.high_watermarks.len(), 1);
        assert_eq!((release.high_watermarks[0].1, release.high_watermarks[0].2), (0, 1));
        // On the leader it went through the whole request path.
        let stages = &visited(trace, id)[&release.broker];
        for s in [Stage::SocketReceiveBuffer, Stage::RequestQueue, Stage::LogAppend, Stage::Purgatory, Stage::SocketSendBuffer] {
            assert!(stages.contains(&s), "{s:?} in {stages:?}");
        }
        assert_eq!(visited(trace, id).len(), 1, "a produce only visits its leader");
        assert!(events_of(trace, id).len() > hops);
    }

    #[test]
    fn a_request_that_never_parked_has_no_release() {
        let mut s = Session::default();
        s.step_many(40);
        let follower = s
            .sim()
            .trace()
            .iter()
            .find_map(|e| match &e.kind {
                TraceKind::Hop { request, .. } if matches!(request.client, NodeId::Broker(_)) => Some(*request),
                _ => None,
            })
            .unwrap();
        assert_eq!(release(s.sim().trace(), follower), None);
    }
}

/// The broker the learner's own requests were last in: where the stage looks
/// when the learner has not picked a node. Read from the trace (the newest
/// `limit` events at most), so the same position of the same run always
/// shows the same broker, on any page that opens it.
pub fn last_learner_broker(trace: &[TraceEvent], limit: usize) -> Option<u32> {
    trace.iter().rev().take(limit).find_map(|e| match (e.node, e.kind.request()) {
        (NodeId::Broker(b), Some(r)) if matches!(r.client, NodeId::Client(_)) => Some(b),
        _ => None,
    })
}
