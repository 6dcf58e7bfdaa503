//! What is going on right now, in a line or two above the cluster picture:
//! the situations a learner should notice (a dead broker the metadata still
//! names leader, an election, a partition without a leader, a cut network),
//! each read off the view model.

use super::i18n::Lang;
use crate::sim::raft::state::RaftRole;
use crate::sim::view::{BrokerStatus, ClusterView};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Situation {
    /// A broker is down, yet the committed metadata still names it leader of
    /// these partitions: the controller has not fenced it yet.
    DeadLeader { broker: u32, partitions: Vec<String> },
    /// Partitions with no leader at all: every replica of the ISR is down.
    Offline { partitions: Vec<String> },
    /// No controller leads the quorum.
    NoActiveController,
    /// Voters are asking for votes.
    Election { candidates: Vec<u32>, epoch: i32 },
    /// The network is cut.
    NetworkCut { cuts: usize },
}

/// The situations in the view, most pressing first.
pub fn situations(view: &ClusterView) -> Vec<Situation> {
    let mut out = Vec::new();
    if let Some(q) = &view.quorum {
        let candidates: Vec<u32> = q
            .controllers
            .iter()
            .filter(|c| matches!(c.raft.as_ref().map(|r| &r.role), Some(RaftRole::Candidate { .. } | RaftRole::Prospective { .. })))
            .map(|c| c.id)
            .collect();
        if !candidates.is_empty() {
            out.push(Situation::Election { candidates, epoch: q.epoch });
        } else if q.active.is_none() {
            out.push(Situation::NoActiveController);
        }
    }
    for b in view.brokers.iter().filter(|b| b.status == BrokerStatus::Stopped) {
        let partitions: Vec<String> = view
            .partitions
            .iter()
            .filter(|p| p.leader == Some(b.id))
            .map(|p| format!("{}-{}", p.topic, p.partition))
            .collect();
        if !partitions.is_empty() {
            out.push(Situation::DeadLeader { broker: b.id, partitions });
        }
    }
    let offline: Vec<String> =
        view.partitions.iter().filter(|p| p.leader.is_none()).map(|p| format!("{}-{}", p.topic, p.partition)).collect();
    if !offline.is_empty() {
        out.push(Situation::Offline { partitions: offline });
    }
    if !view.network_cuts.is_empty() {
        out.push(Situation::NetworkCut { cuts: view.network_cuts.len() });
    }
    out
}

/// A list as a person writes it: "a", "a and b", "a, b and c".
pub fn prose_list(lang: Lang, items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => match lang {
            Lang::En => format!("{} and {last}", rest.join(", ")),
            Lang::Ko => format!("{}, {last}", rest.join(", ")),
        },
    }
}

/// Broker ids as the page lists them: "0, 1, 2", or "none".
pub fn number_list(ids: &[u32]) -> String {
    if ids.is_empty() {
        return "none".into();
    }
    ids.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
}

/// One situation in one sentence.
pub fn sentence(lang: Lang, s: &Situation) -> String {
    match (lang, s) {
        (Lang::En, Situation::DeadLeader { broker, partitions }) => format!(
            "Broker {broker} is down, but the metadata still names it leader of {}: nothing moves until the active controller fences it after broker.session.timeout.ms without a heartbeat.",
            prose_list(lang, partitions)
        ),
        (Lang::Ko, Situation::DeadLeader { broker, partitions }) => format!(
            "브로커 {broker}는 멈췄지만 메타데이터는 아직 이 브로커를 {}의 리더로 적고 있습니다. 하트비트 없이 broker.session.timeout.ms가 지나 액티브 컨트롤러가 펜싱할 때까지 아무것도 바뀌지 않습니다.",
            prose_list(lang, partitions)
        ),
        (Lang::En, Situation::Offline { partitions }) => format!(
            "{} {} no leader: no replica of the ISR is alive, so it can be neither written nor read.",
            prose_list(lang, partitions),
            if partitions.len() == 1 { "has" } else { "have" }
        ),
        (Lang::Ko, Situation::Offline { partitions }) => format!(
            "{}에는 리더가 없습니다. 살아 있는 ISR 복제본이 없어 쓰지도 읽지도 못합니다.",
            prose_list(lang, partitions)
        ),
        (Lang::En, Situation::NoActiveController) => {
            "No active controller: the voters wait out their timeouts, then elect one; until then no metadata can change.".into()
        }
        (Lang::Ko, Situation::NoActiveController) => {
            "액티브 컨트롤러가 없습니다. 투표자들이 타임아웃을 기다린 뒤 하나를 뽑으며, 그때까지 메타데이터는 바뀔 수 없습니다.".into()
        }
        (Lang::En, Situation::Election { candidates, epoch }) => {
            let names: Vec<String> = candidates.iter().map(|c| format!("controller {c}")).collect();
            format!("Election: {} {} for votes (epoch {epoch}).", prose_list(lang, &names), if candidates.len() == 1 { "asks" } else { "ask" })
        }
        (Lang::Ko, Situation::Election { candidates, epoch }) => {
            let names: Vec<String> = candidates.iter().map(|c| format!("컨트롤러 {c}")).collect();
            format!("선거: {}가 표를 청합니다(에포크 {epoch}).", prose_list(lang, &names))
        }
        (Lang::En, Situation::NetworkCut { cuts }) => format!(
            "The network is cut in {cuts} place{}: messages across a cut are lost, and each side notices only by its timeouts.",
            if *cuts == 1 { "" } else { "s" }
        ),
        (Lang::Ko, Situation::NetworkCut { cuts }) => {
            format!("네트워크가 {cuts}곳에서 끊겼습니다. 끊긴 곳을 건너는 메시지는 사라지고, 양쪽은 타임아웃으로만 알아챕니다.")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::simulation::Command;
    use crate::ui::session::Session;

    #[test]
    fn a_killed_leader_is_a_dead_leader_until_it_is_fenced() {
        let mut s = Session::default();
        assert!(situations(&s.view()).is_empty(), "a booted cluster is calm");
        let leader = s.view().partition("orders", 0).unwrap().leader.unwrap();
        s.command_now(Command::KillBroker { broker: leader }).unwrap();
        let now = situations(&s.view());
        assert!(matches!(&now[..], [Situation::DeadLeader { broker, partitions }] if *broker == leader && partitions.contains(&"orders-0".to_string())), "{now:?}");
        let expired = |e: &crate::sim::trace::TraceEvent| matches!(e.kind, crate::sim::trace::TraceKind::BrokerSessionExpired { .. });
        assert!(s.seek(60_000, expired));
        // The fence and the new leaders commit; then the dead broker leads nothing.
        for _ in 0..2_000 {
            if !situations(&s.view()).iter().any(|x| matches!(x, Situation::DeadLeader { .. })) {
                break;
            }
            s.step();
        }
        assert!(!situations(&s.view()).iter().any(|x| matches!(x, Situation::DeadLeader { .. })));
    }

    #[test]
    fn killing_the_active_controller_shows_no_active_controller_then_an_election() {
        let mut s = Session::default();
        let active = s.view().quorum.unwrap().active.unwrap();
        s.command_now(Command::KillController { controller: active }).unwrap();
        assert_eq!(situations(&s.view()), vec![Situation::NoActiveController]);
        let mut saw_election = false;
        for _ in 0..20_000 {
            s.step();
            let now = situations(&s.view());
            saw_election |= now.iter().any(|x| matches!(x, Situation::Election { .. }));
            if s.view().quorum.unwrap().active.is_some() {
                break;
            }
        }
        assert!(saw_election, "the voters asked for votes on the way");
        assert!(s.view().quorum.unwrap().active.is_some());
    }

    #[test]
    fn every_situation_reads_as_plain_language_in_both_languages() {
        let all = [
            Situation::DeadLeader { broker: 1, partitions: vec!["orders-0".into(), "orders-2".into()] },
            Situation::Offline { partitions: vec!["orders-1".into()] },
            Situation::NoActiveController,
            Situation::Election { candidates: vec![2], epoch: 4 },
            Situation::NetworkCut { cuts: 1 },
        ];
        for s in &all {
            for lang in [Lang::En, Lang::Ko] {
                let text = sentence(lang, s);
                assert!(!text.contains(['{', '}', '[', ']']) && !text.contains("Some("), "{text}");
            }
            assert!(sentence(Lang::Ko, s).chars().any(|c| ('\u{AC00}'..='\u{D7A3}').contains(&c)));
        }
        assert_eq!(sentence(Lang::En, &all[0]).split(':').next().unwrap(), "Broker 1 is down, but the metadata still names it leader of orders-0 and orders-2");
        assert_eq!(prose_list(Lang::En, &["a".into(), "b".into(), "c".into()]), "a, b and c");
    }
}
