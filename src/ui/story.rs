//! What is going on right now, in a line or two above the cluster picture:
//! the situations a learner should notice (a dead broker the metadata still
//! names leader, an election, a partition without a leader, a cut network),
//! each read off the view model.

use super::i18n::Lang;
use crate::sim::raft::state::RaftRole;
use crate::sim::ids::NodeId;
use crate::sim::trace::WaitReason;
use crate::sim::view::{BrokerStatus, ClusterView};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Situation {
    /// A broker that cannot heartbeat (down, cut off, or silent too long):
    /// the active controller fences it when its session runs out. `leads`
    /// are the partitions the metadata still names it leader of.
    /// `restarted`: the broker runs again, but as a new process whose
    /// registration the controller refuses until the old session ends.
    Fencing { broker: u32, in_ms: u64, leads: Vec<String>, restarted: bool },
    /// Fenced, yet the committed metadata still names it leader of these
    /// partitions: the active controller is choosing new leaders from the
    /// ISR, and they take over once the quorum commits the change.
    Electing { broker: u32, partitions: Vec<String> },
    /// Down and still named leader, with no active controller to fence it:
    /// the metadata is frozen.
    DeadLeader { broker: u32, partitions: Vec<String> },
    /// Partitions with no leader at all: every replica of the ISR is down.
    Offline { partitions: Vec<String> },
    /// No controller leads the quorum; the voters' soonest timeout, if one
    /// is running.
    NoActiveController { election_in_ms: Option<u64> },
    /// Voters are asking for votes. `pre_vote`: none is a candidate yet;
    /// they are prospective (KIP-996) and ask whether the others would vote
    /// for them without bumping the epoch, so a voter that was only cut off
    /// cannot unseat a healthy leader on its return.
    Election { candidates: Vec<u32>, epoch: i32, pre_vote: bool },
    /// The network is cut.
    NetworkCut { cuts: usize },
    /// One of the learner's own requests waits in a broker's purgatory.
    Waiting { request: String, api: &'static str, broker: u32, wait: Option<WaitReason>, in_ms: u64 },
}

/// The situations in the view at `now_ms`, most pressing first.
pub fn situations(view: &ClusterView, now_ms: f64) -> Vec<Situation> {
    let mut out = Vec::new();
    if let Some(q) = &view.quorum {
        // Once one voter is a real candidate, the story names only the real
        // candidates; before that, the prospective ones asking for pre-votes.
        let with_role = |real: bool| -> Vec<u32> {
            q.controllers
                .iter()
                .filter(|c| match c.raft.as_ref().map(|r| &r.role) {
                    Some(RaftRole::Candidate { .. }) => real,
                    Some(RaftRole::Prospective { .. }) => !real,
                    _ => false,
                })
                .map(|c| c.id)
                .collect()
        };
        let real = with_role(true);
        let pre_vote = real.is_empty();
        let candidates = if pre_vote { with_role(false) } else { real };
        if !candidates.is_empty() {
            out.push(Situation::Election { candidates, epoch: q.epoch, pre_vote });
        } else if q.active.is_none() {
            let election_in_ms = q
                .controllers
                .iter()
                .filter_map(|c| super::countdown::controller(view, c.id, now_ms))
                .map(|c| c.remaining_ms)
                .min();
            out.push(Situation::NoActiveController { election_in_ms });
        }
    }
    let frozen = view.quorum.as_ref().is_some_and(|q| q.active.is_none());
    for b in &view.brokers {
        let leads: Vec<String> = view
            .partitions
            .iter()
            .filter(|p| p.leader == Some(b.id))
            .map(|p| format!("{}-{}", p.topic, p.partition))
            .collect();
        if let Some(c) = super::countdown::broker_session(view, b.id, now_ms).filter(|c| c.running_down) {
            let restarted = b.status != BrokerStatus::Stopped && !b.registered;
            out.push(Situation::Fencing { broker: b.id, in_ms: c.remaining_ms, leads, restarted });
        } else if leads.is_empty() {
            continue;
        } else if b.status == BrokerStatus::Stopped && frozen {
            out.push(Situation::DeadLeader { broker: b.id, partitions: leads });
        } else if matches!(b.status, BrokerStatus::Stopped | BrokerStatus::Fenced) {
            out.push(Situation::Electing { broker: b.id, partitions: leads });
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
    for b in &view.brokers {
        for op in b.purgatory.produce.iter().chain(b.purgatory.fetch.iter()) {
            if matches!(op.token.request.client, NodeId::Client(_)) {
                out.push(Situation::Waiting {
                    request: op.token.request.to_string(),
                    api: op.token.api.name(),
                    broker: b.id,
                    wait: op.waits.first().cloned(),
                    in_ms: (op.deadline_ms as f64 - now_ms).max(0.0) as u64,
                });
            }
        }
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
    use super::i18n::duration;
    use super::narrate_ko::{ga, neun};
    match (lang, s) {
        (Lang::En, Situation::Fencing { broker, in_ms, leads, restarted }) => format!(
            "Broker {broker} sends no heartbeat the active controller hears: fenced in {}{}.{}",
            duration(lang, *in_ms),
            if leads.is_empty() {
                String::new()
            } else {
                format!(", and until then the metadata still names it leader of {}", prose_list(lang, leads))
            },
            if *restarted { " It runs again, but the controller refuses the new process's registration until the old session ends." } else { "" }
        ),
        (Lang::Ko, Situation::Fencing { broker, in_ms, leads, restarted }) => format!(
            "액티브 컨트롤러에게 {} 하트비트가 닿지 않습니다: {} 뒤 펜싱됩니다{}.{}",
            format!("브로커 {broker}의"),
            duration(lang, *in_ms),
            if leads.is_empty() {
                String::new()
            } else {
                format!(". 그때까지 메타데이터는 아직 이 브로커를 {}의 리더로 적고 있습니다", prose_list(lang, leads))
            },
            if *restarted { " 브로커는 다시 실행 중이지만, 옛 세션이 끝날 때까지 컨트롤러가 새 프로세스의 등록을 거절합니다." } else { "" }
        ),
        (Lang::En, Situation::Electing { broker, partitions }) => format!(
            "Broker {broker} is fenced: the active controller elects new leaders for {} from the ISR, and they take over once the quorum commits the change.",
            prose_list(lang, partitions)
        ),
        (Lang::Ko, Situation::Electing { broker, partitions }) => format!(
            "{} 펜싱되었습니다: 액티브 컨트롤러가 ISR에서 {}의 새 리더를 뽑고, 쿼럼이 그 변경을 커밋하면 새 리더가 넘겨받습니다.",
            ga(format!("브로커 {broker}")),
            prose_list(lang, partitions)
        ),
        (Lang::En, Situation::DeadLeader { broker, partitions }) => format!(
            "Broker {broker} is down, but the metadata still names it leader of {}: with no active controller, nobody can fence it or elect another leader.",
            prose_list(lang, partitions)
        ),
        (Lang::Ko, Situation::DeadLeader { broker, partitions }) => format!(
            "{} 멈췄지만 메타데이터는 아직 이 브로커를 {}의 리더로 적고 있습니다. 액티브 컨트롤러가 없어 아무도 펜싱하거나 다른 리더를 뽑을 수 없습니다.",
            neun(format!("브로커 {broker}")),
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
        (Lang::En, Situation::NoActiveController { election_in_ms }) => match election_in_ms {
            Some(ms) => format!(
                "No active controller: the voters' fetch timeout runs out in {}, then they elect one; until then no metadata can change.",
                duration(lang, *ms)
            ),
            None => "No active controller: fewer than a majority of voters are up, so no metadata can change until one returns.".into(),
        },
        (Lang::Ko, Situation::NoActiveController { election_in_ms }) => match election_in_ms {
            Some(ms) => format!(
                "액티브 컨트롤러가 없습니다: {} 뒤 투표자들의 페치 타임아웃이 다하면 새로 뽑으며, 그때까지 메타데이터는 바뀔 수 없습니다.",
                duration(lang, *ms)
            ),
            None => "액티브 컨트롤러가 없습니다: 살아 있는 투표자가 과반에 못 미쳐, 하나가 돌아올 때까지 메타데이터는 바뀔 수 없습니다.".into(),
        },
        (Lang::En, Situation::Election { candidates, epoch, pre_vote }) => {
            let ids: Vec<String> = candidates.iter().map(u32::to_string).collect();
            let one = candidates.len() == 1;
            let who = format!("{} {}", if one { "controller" } else { "controllers" }, prose_list(lang, &ids));
            let asks = if one { "asks" } else { "ask" };
            if *pre_vote {
                format!(
                    "Pre-vote: {who} {asks} the other voters whether they would vote for {} (epoch {epoch}); only with a majority of yeses does a voter bump the epoch and ask for real votes.",
                    if one { "it" } else { "them" }
                )
            } else {
                format!("Election: {who} {asks} the other voters for their votes (epoch {epoch}); a majority makes a new active controller.")
            }
        }
        (Lang::Ko, Situation::Election { candidates, epoch, pre_vote }) => {
            let ids: Vec<String> = candidates.iter().map(u32::to_string).collect();
            let who = ga(format!("컨트롤러 {}", prose_list(lang, &ids)));
            if *pre_vote {
                format!("사전 투표: {who} 다른 투표자들에게 자기에게 표를 줄지 묻습니다(에포크 {epoch}). 과반이 그렇다고 답해야 에포크를 올리고 진짜 표를 청합니다.")
            } else {
                format!("선거: {who} 다른 투표자들에게 표를 청합니다(에포크 {epoch}). 과반을 얻으면 새 액티브 컨트롤러가 됩니다.")
            }
        }
        (Lang::En, Situation::NetworkCut { cuts }) => format!(
            "The network is cut in {cuts} place{}: messages across a cut are lost, and each side notices only by its timeouts.",
            if *cuts == 1 { "" } else { "s" }
        ),
        (Lang::En, Situation::Waiting { request, api, broker, wait, in_ms }) => format!(
            "Your {api} {request} waits in broker {broker}'s purgatory{}; it is answered then, or after {} at the latest.",
            wait.as_ref().map(|w| format!(" {}", waiting_for(lang, w))).unwrap_or_default(),
            duration(lang, *in_ms)
        ),
        (Lang::Ko, Situation::Waiting { request, api, broker, wait, in_ms }) => format!(
            "내 {} 브로커 {broker}의 퍼거토리에서 {}. 늦어도 {} 뒤에는 답을 받습니다.",
            ga(format!("{api} {request}")),
            wait.as_ref().map(|w| waiting_for(lang, w)).unwrap_or_else(|| "기다립니다".into()),
            duration(lang, *in_ms)
        ),
        (Lang::Ko, Situation::NetworkCut { cuts }) => {
            format!("네트워크가 {cuts}곳에서 끊겼습니다. 끊긴 곳을 건너는 메시지는 사라지고, 양쪽은 타임아웃으로만 알아챕니다.")
        }
    }
}

/// What a delayed operation waits for, short enough for the line over the
/// picture (the narration and the purgatory's list say it in full).
fn waiting_for(lang: Lang, w: &WaitReason) -> String {
    match (lang, w) {
        (Lang::En, WaitReason::HighWatermark { partition, required_offset, high_watermark, .. }) => {
            format!("until the high watermark of {partition} reaches {required_offset} (now {high_watermark})")
        }
        (Lang::Ko, WaitReason::HighWatermark { partition, required_offset, high_watermark, .. }) => {
            format!("{partition}의 하이 워터마크가 {required_offset}에 닿기를 기다립니다(지금 {high_watermark})")
        }
        (Lang::En, WaitReason::MinBytes { min_bytes, available_bytes }) => {
            format!("until {min_bytes} byte(s) can be read (now {available_bytes})")
        }
        (Lang::Ko, WaitReason::MinBytes { min_bytes, available_bytes }) => {
            format!("읽을 바이트가 {min_bytes}에 닿기를 기다립니다(지금 {available_bytes})")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::simulation::Command;
    use crate::ui::session::Session;

    fn now(s: &Session) -> f64 {
        s.sim().now_ms() as f64
    }

    #[test]
    fn a_killed_leader_counts_down_to_its_fence_then_its_partitions_are_elected() {
        let mut s = Session::default();
        assert!(situations(&s.view(), now(&s)).is_empty(), "a booted cluster is calm");
        let leader = s.view().partition("orders", 0).unwrap().leader.unwrap();
        s.command_now(Command::KillBroker { broker: leader }).unwrap();
        let first = situations(&s.view(), now(&s));
        let in_ms = match &first[..] {
            [Situation::Fencing { broker, in_ms, leads, restarted: false }] if *broker == leader && leads.contains(&"orders-0".to_string()) => *in_ms,
            other => panic!("{other:?}"),
        };
        assert!(in_ms > 5_000 && in_ms <= 9_000, "{in_ms}");
        let expired = |e: &crate::sim::trace::TraceEvent| matches!(e.kind, crate::sim::trace::TraceKind::BrokerSessionExpired { .. });
        assert!(s.seek(60_000, expired));
        let mut saw_electing = false;
        for _ in 0..5_000 {
            let now_is = situations(&s.view(), now(&s));
            saw_electing |= now_is.iter().any(|x| matches!(x, Situation::Electing { broker, .. } if *broker == leader));
            if !now_is.iter().any(|x| matches!(x, Situation::Electing { .. } | Situation::Fencing { .. })) {
                break;
            }
            s.step();
        }
        assert!(saw_electing, "between the fence and the commit the partitions are being elected");
        assert!(situations(&s.view(), now(&s)).is_empty(), "{:?}", situations(&s.view(), now(&s)));
        assert_ne!(s.view().partition("orders", 0).unwrap().leader, Some(leader));
    }

    /// A broker restarted within its session: the countdown goes on, and the
    /// line says why the running broker does not take part yet.
    #[test]
    fn a_broker_restarted_within_its_session_is_shown_refused_until_the_fence() {
        let mut s = Session::default();
        let leader = s.view().partition("orders", 0).unwrap().leader.unwrap();
        s.command_now(Command::KillBroker { broker: leader }).unwrap();
        s.command_now(Command::RestartBroker { broker: leader }).unwrap();
        let refused = |e: &crate::sim::trace::TraceEvent| matches!(e.kind, crate::sim::trace::TraceKind::BrokerRegistrationRefused { .. });
        assert!(s.seek(60_000, refused));
        match &situations(&s.view(), now(&s))[..] {
            [Situation::Fencing { broker, restarted: true, leads, .. }] if *broker == leader && !leads.is_empty() => {}
            other => panic!("{other:?}"),
        }
        let text = sentence(Lang::En, &situations(&s.view(), now(&s))[0]);
        assert!(text.ends_with("refuses the new process's registration until the old session ends."), "{text}");
    }

    #[test]
    fn killing_the_active_controller_shows_no_active_controller_then_an_election() {
        let mut s = Session::default();
        let active = s.view().quorum.unwrap().active.unwrap();
        s.command_now(Command::KillController { controller: active }).unwrap();
        assert!(matches!(situations(&s.view(), now(&s))[..], [Situation::NoActiveController { election_in_ms: Some(_) }]), "{:?}", situations(&s.view(), now(&s)));
        // KIP-996: the voters first ask for pre-votes, and only then for
        // real votes in a new epoch.
        let (mut first_pre_vote, mut first_real_vote) = (None, None);
        for position in 0..20_000 {
            s.step();
            for x in situations(&s.view(), now(&s)) {
                match x {
                    Situation::Election { pre_vote: true, .. } => first_pre_vote = first_pre_vote.or(Some(position)),
                    Situation::Election { pre_vote: false, .. } => first_real_vote = first_real_vote.or(Some(position)),
                    _ => {}
                }
            }
            if s.view().quorum.unwrap().active.is_some() {
                break;
            }
        }
        let (Some(pre), Some(real)) = (first_pre_vote, first_real_vote) else {
            panic!("pre-vote at {first_pre_vote:?}, real vote at {first_real_vote:?}")
        };
        assert!(pre < real, "the pre-vote (position {pre}) comes before the real vote (position {real})");
        assert!(s.view().quorum.unwrap().active.is_some());
    }

    #[test]
    fn every_situation_reads_as_plain_language_in_both_languages() {
        let all = [
            Situation::DeadLeader { broker: 1, partitions: vec!["orders-0".into(), "orders-2".into()] },
            Situation::Fencing { broker: 1, in_ms: 6_200, leads: vec!["orders-0".into()], restarted: false },
            Situation::Fencing { broker: 2, in_ms: 300, leads: vec![], restarted: true },
            Situation::Electing { broker: 1, partitions: vec!["orders-0".into()] },
            Situation::Offline { partitions: vec!["orders-1".into()] },
            Situation::NoActiveController { election_in_ms: Some(1_200) },
            Situation::NoActiveController { election_in_ms: None },
            Situation::Election { candidates: vec![2], epoch: 4, pre_vote: false },
            Situation::Election { candidates: vec![0, 2], epoch: 4, pre_vote: true },
            Situation::NetworkCut { cuts: 1 },
            Situation::Waiting {
                request: "client-0#3".into(),
                api: "Produce",
                broker: 1,
                wait: Some(WaitReason::MinBytes { min_bytes: 100, available_bytes: 0 }),
                in_ms: 29_400,
            },
        ];
        for s in &all {
            for lang in [Lang::En, Lang::Ko] {
                let text = sentence(lang, s);
                assert!(!text.contains(['{', '}', '[', ']']) && !text.contains("Some("), "{text}");
            }
            assert!(sentence(Lang::Ko, s).chars().any(|c| ('\u{AC00}'..='\u{D7A3}').contains(&c)));
        }
        assert_eq!(sentence(Lang::En, &all[0]).split(':').next().unwrap(), "Broker 1 is down, but the metadata still names it leader of orders-0 and orders-2");
        assert!(sentence(Lang::En, &all[1]).contains("fenced in 6.2 s"));
        assert_eq!(prose_list(Lang::En, &["a".into(), "b".into(), "c".into()]), "a, b and c");
    }
}
