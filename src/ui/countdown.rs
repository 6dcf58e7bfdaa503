//! The timeouts that decide what happens next, as countdowns the stage
//! draws: a broker's session (fenced in N s), a voter's fetch and election
//! timeouts, a leader's check-quorum, a producer batch's linger.ms,
//! request.timeout.ms and retry backoff. Each is read off the view model's
//! deadlines; what this module adds is whether the countdown is *running
//! down* (nothing will reset it in time, so the learner should watch it) or
//! only ticking as it always does in a healthy cluster.

use super::faults;
use super::i18n::Lang;
use crate::sim::control_plane::{BROKER_HEARTBEAT_INTERVAL_MS, BROKER_SESSION_TIMEOUT_MS};
use crate::sim::ids::NodeId;
use crate::sim::raft::state::RaftDeadlineKind;
use crate::sim::view::{BatchDeadlineKind, BrokerStatus, ClusterView};

/// The default `controller.quorum.fetch.timeout.ms`, for the length of a
/// voter's countdown (the view carries when it ends, not how long it is).
pub const QUORUM_FETCH_TIMEOUT_MS: u64 = 2_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The active controller fences the broker (broker.session.timeout.ms).
    Fencing,
    /// A follower voter starts an election (controller.quorum.fetch.timeout.ms).
    FetchTimeout,
    /// An unattached, prospective or candidate voter tries again
    /// (controller.quorum.election.timeout.ms).
    ElectionTimeout,
    /// A candidate that lost waits before it tries again.
    ElectionBackoff,
    /// The leader resigns unless a majority fetched (1.5 × the fetch timeout).
    CheckQuorum,
    /// A producer batch is sent full or not (linger.ms).
    Linger,
    /// An in-flight produce is given up (request.timeout.ms).
    RequestTimeout,
    /// A failed batch may be sent again (retry.backoff.ms).
    RetryBackoff,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Countdown {
    pub kind: Kind,
    pub remaining_ms: u64,
    /// How long the countdown is when it starts afresh, for the ring.
    pub total_ms: u64,
    /// Nothing will reset it in time: it will fire, so the page says so in
    /// words, not only with a ring.
    pub running_down: bool,
}

impl Countdown {
    /// How much is left, from 1 (just reset) to 0 (firing).
    pub fn fraction(&self) -> f64 {
        if self.total_ms == 0 {
            return 0.0;
        }
        (self.remaining_ms as f64 / self.total_ms as f64).clamp(0.0, 1.0)
    }
}

fn remaining(at_ms: u64, now_ms: f64) -> u64 {
    (at_ms as f64 - now_ms).max(0.0).round() as u64
}

/// A broker's session as the active controller keeps it. It is running down
/// when the broker cannot heartbeat (its process is down, or a cut keeps its
/// heartbeats from the controller) or when no heartbeat came for more than
/// a heartbeat interval and a half.
pub fn broker_session(view: &ClusterView, broker: u32, now_ms: f64) -> Option<Countdown> {
    let b = view.brokers.iter().find(|b| b.id == broker)?;
    let session = b.session.as_ref()?;
    if session.fenced {
        return None;
    }
    let active = view.quorum.as_ref().and_then(|q| q.active)?;
    // A stopped broker, or a new process of it that is not registered,
    // cannot renew this session.
    let cannot_reach = b.status == BrokerStatus::Stopped
        || !b.registered
        || faults::link_is_cut(view, NodeId::Broker(broker), NodeId::Controller(active));
    let silent_ms = (now_ms - session.last_heartbeat_ms as f64).max(0.0) as u64;
    let overdue = silent_ms > BROKER_HEARTBEAT_INTERVAL_MS * 3 / 2;
    Some(Countdown {
        kind: Kind::Fencing,
        remaining_ms: remaining(session.fence_deadline_ms, now_ms),
        total_ms: BROKER_SESSION_TIMEOUT_MS,
        running_down: cannot_reach || overdue,
    })
}

/// The deadline that decides a voter's next move. A follower's fetch
/// timeout and a leader's check-quorum run down once they have not been
/// reset for a while (a live leader answers a follower's fetch well within
/// the fetch timeout); an election timeout or backoff always fires.
pub fn controller(view: &ClusterView, controller: u32, now_ms: f64) -> Option<Countdown> {
    let c = view.quorum.as_ref()?.controllers.iter().find(|c| c.id == controller)?;
    let deadline = c.raft.as_ref()?.deadline?;
    let left = remaining(deadline.at_ms, now_ms);
    let (kind, total, running_down) = match deadline.kind {
        RaftDeadlineKind::FetchTimeout => (Kind::FetchTimeout, QUORUM_FETCH_TIMEOUT_MS, left < QUORUM_FETCH_TIMEOUT_MS * 3 / 5),
        RaftDeadlineKind::CheckQuorum => {
            let total = QUORUM_FETCH_TIMEOUT_MS * 3 / 2;
            (Kind::CheckQuorum, total, left < total / 2)
        }
        RaftDeadlineKind::ElectionTimeout => (Kind::ElectionTimeout, QUORUM_FETCH_TIMEOUT_MS, true),
        RaftDeadlineKind::ElectionBackoff => (Kind::ElectionBackoff, QUORUM_FETCH_TIMEOUT_MS / 2, true),
    };
    Some(Countdown { kind, remaining_ms: left, total_ms: total.max(left), running_down })
}

/// The soonest deadline among a producer's batches (linger.ms, then
/// request.timeout.ms, then a retry's backoff); every one of them fires.
pub fn producer(view: &ClusterView, client: NodeId, now_ms: f64) -> Option<Countdown> {
    let p = view.producers.iter().find(|p| p.id == client)?;
    p.batches
        .iter()
        .filter_map(|b| b.deadline)
        .min_by_key(|d| d.at_ms)
        .map(|d| {
            let kind = match d.kind {
                BatchDeadlineKind::Linger => Kind::Linger,
                BatchDeadlineKind::RequestTimeout => Kind::RequestTimeout,
                BatchDeadlineKind::RetryBackoff => Kind::RetryBackoff,
            };
            let left = remaining(d.at_ms, now_ms);
            Countdown { kind, remaining_ms: left, total_ms: left, running_down: true }
        })
}

/// The words under a countdown: "fenced in 6.2 s".
pub fn label(lang: Lang, c: &Countdown) -> String {
    let d = super::i18n::duration(lang, c.remaining_ms);
    match (lang, c.kind) {
        (Lang::En, Kind::Fencing) => format!("fenced in {d}"),
        (Lang::En, Kind::FetchTimeout) => format!("election in {d}"),
        (Lang::En, Kind::ElectionTimeout) => format!("election timeout in {d}"),
        (Lang::En, Kind::ElectionBackoff) => format!("retries in {d}"),
        (Lang::En, Kind::CheckQuorum) => format!("resigns in {d}"),
        (Lang::En, Kind::Linger) => format!("linger.ms ends in {d}"),
        (Lang::En, Kind::RequestTimeout) => format!("times out in {d}"),
        (Lang::En, Kind::RetryBackoff) => format!("retries in {d}"),
        (Lang::Ko, Kind::Fencing) => format!("{d} 뒤 펜싱"),
        (Lang::Ko, Kind::FetchTimeout) => format!("{d} 뒤 선거"),
        (Lang::Ko, Kind::ElectionTimeout) => format!("선거 타임아웃 {d}"),
        (Lang::Ko, Kind::ElectionBackoff) => format!("{d} 뒤 재시도"),
        (Lang::Ko, Kind::CheckQuorum) => format!("{d} 뒤 사임"),
        (Lang::Ko, Kind::Linger) => format!("linger.ms {d} 남음"),
        (Lang::Ko, Kind::RequestTimeout) => format!("{d} 뒤 타임아웃"),
        (Lang::Ko, Kind::RetryBackoff) => format!("{d} 뒤 재시도"),
    }
}

/// What a countdown is about, for its tooltip: the Kafka setting behind it.
pub fn explained(lang: Lang, kind: Kind) -> &'static str {
    match (lang, kind) {
        (Lang::En, Kind::Fencing) => "broker.session.timeout.ms (9 s): without a heartbeat for that long, the active controller fences the broker and moves its leaderships.",
        (Lang::En, Kind::FetchTimeout) => "controller.quorum.fetch.timeout.ms (2 s): a follower voter that fetches nothing from its leader for that long starts an election.",
        (Lang::En, Kind::ElectionTimeout) => "controller.quorum.election.timeout.ms (1 s, randomised up to twice that): a voter with no leader tries to become one when it runs out.",
        (Lang::En, Kind::ElectionBackoff) => "A candidate that lost waits a random backoff before it asks again, so two candidates do not split the vote forever.",
        (Lang::En, Kind::CheckQuorum) => "The leader resigns if a majority of voters has not fetched within 1.5 × controller.quorum.fetch.timeout.ms.",
        (Lang::En, Kind::Linger) => "linger.ms: the producer waits this long for more records before it sends a batch that is not full.",
        (Lang::En, Kind::RequestTimeout) => "request.timeout.ms (30 s): the producer gives a request up if no answer comes, and retries the batch.",
        (Lang::En, Kind::RetryBackoff) => "Retry backoff: a failed batch waits before it is sent again, retry.backoff.ms at first (100 ms by default), doubling with each retry up to retry.backoff.max.ms (1 s by default), give or take a fifth; not at all once the partition has a new leader.",
        (Lang::Ko, Kind::Fencing) => "broker.session.timeout.ms(9초): 그동안 하트비트가 없으면 액티브 컨트롤러가 브로커를 펜싱하고 리더 자리를 옮깁니다.",
        (Lang::Ko, Kind::FetchTimeout) => "controller.quorum.fetch.timeout.ms(2초): 팔로워 투표자가 그동안 리더에게서 아무것도 가져오지 못하면 선거를 시작합니다.",
        (Lang::Ko, Kind::ElectionTimeout) => "controller.quorum.election.timeout.ms(1초, 그 두 배까지 무작위): 리더가 없는 투표자는 이 시간이 다하면 스스로 리더가 되려 합니다.",
        (Lang::Ko, Kind::ElectionBackoff) => "진 후보는 무작위 백오프만큼 기다렸다가 다시 표를 청합니다. 두 후보가 끝없이 표를 나눠 갖지 않게 하려는 것입니다.",
        (Lang::Ko, Kind::CheckQuorum) => "과반의 투표자가 controller.quorum.fetch.timeout.ms의 1.5배 안에 가져가지 않으면 리더는 사임합니다.",
        (Lang::Ko, Kind::Linger) => "linger.ms: 프로듀서는 가득 차지 않은 배치를 보내기 전에 레코드가 더 오기를 이만큼 기다립니다.",
        (Lang::Ko, Kind::RequestTimeout) => "request.timeout.ms(30초): 답이 오지 않으면 프로듀서는 요청을 포기하고 배치를 다시 보냅니다.",
        (Lang::Ko, Kind::RetryBackoff) => "재시도 백오프: 실패한 배치는 다시 보내기 전에 기다립니다. 처음엔 retry.backoff.ms(기본 100 ms), 재시도마다 두 배로 retry.backoff.max.ms(기본 1초)까지 늘고 ±20% 흔들립니다. 파티션의 리더가 바뀌었으면 기다리지 않습니다.",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::simulation::Command;
    use crate::ui::session::Session;

    #[test]
    fn a_healthy_brokers_session_ticks_but_a_killed_ones_runs_down_to_its_fence() {
        let mut s = Session::default();
        let now = s.sim().now_ms() as f64;
        let view = s.view();
        for b in &view.brokers {
            let c = broker_session(&view, b.id, now).expect("every registered broker has a session");
            assert!(!c.running_down, "broker {} is heard", b.id);
            assert!(c.remaining_ms > BROKER_SESSION_TIMEOUT_MS - 3 * BROKER_HEARTBEAT_INTERVAL_MS / 2);
        }
        s.command_now(Command::KillBroker { broker: 1 }).unwrap();
        let view = s.view();
        let now = s.sim().now_ms() as f64;
        let c = broker_session(&view, 1, now).unwrap();
        assert!(c.running_down, "a dead broker sends no heartbeat");
        // The countdown reaches zero exactly when the controller fences it.
        let fenced_at = c.remaining_ms as f64 + now;
        let expired = |e: &crate::sim::trace::TraceEvent| matches!(e.kind, crate::sim::trace::TraceKind::BrokerSessionExpired { broker: 1, .. });
        assert!(s.seek(60_000, expired));
        assert_eq!(s.sim().now_ms() as f64, fenced_at);
        assert_eq!(broker_session(&s.view(), 1, s.sim().now_ms() as f64), None, "a fenced broker's session is over");
    }

    #[test]
    fn a_follower_voters_fetch_timeout_runs_down_once_its_leader_is_dead() {
        let mut s = Session::default();
        let view = s.view();
        let now = s.sim().now_ms() as f64;
        let q = view.quorum.as_ref().unwrap();
        let active = q.active.unwrap();
        for c in q.controllers.iter().filter(|c| c.id != active) {
            let d = controller(&view, c.id, now).unwrap();
            assert_eq!(d.kind, Kind::FetchTimeout);
            assert!(!d.running_down, "{d:?}");
        }
        assert_eq!(controller(&view, active, now).unwrap().kind, Kind::CheckQuorum);
        s.command_now(Command::KillController { controller: active }).unwrap();
        // Some time later, with no leader to answer their fetches, the
        // followers' countdowns run down.
        let mut running = false;
        for _ in 0..5_000 {
            s.step();
            let view = s.view();
            let now = s.sim().now_ms() as f64;
            running = view.quorum.as_ref().unwrap().controllers.iter().filter(|c| c.alive).any(|c| controller(&view, c.id, now).is_some_and(|d| d.running_down));
            if running {
                break;
            }
        }
        assert!(running);
    }

    #[test]
    fn labels_read_as_plain_language() {
        for kind in [
            Kind::Fencing,
            Kind::FetchTimeout,
            Kind::ElectionTimeout,
            Kind::ElectionBackoff,
            Kind::CheckQuorum,
            Kind::Linger,
            Kind::RequestTimeout,
            Kind::RetryBackoff,
        ] {
            let c = Countdown { kind, remaining_ms: 6_240, total_ms: 9_000, running_down: true };
            assert!(label(Lang::En, &c).contains("6.2 s"), "{}", label(Lang::En, &c));
            assert!(label(Lang::Ko, &c).contains("6.2 초") || label(Lang::Ko, &c).contains("6.2초"), "{}", label(Lang::Ko, &c));
            assert!(!explained(Lang::En, kind).is_empty() && !explained(Lang::Ko, kind).is_empty());
        }
        assert_eq!(label(Lang::En, &Countdown { kind: Kind::Fencing, remaining_ms: 6_240, total_ms: 9_000, running_down: true }), "fenced in 6.2 s");
    }
}
