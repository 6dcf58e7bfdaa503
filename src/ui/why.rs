//! "Why?" for a partition: why this broker leads, why each replica is in
//! or out of the ISR, and where the high watermark comes from, read from the
//! view model alone (the committed metadata, each broker's status and the
//! leader's record of its followers), with the rule Kafka applies.

use super::i18n::Lang;
use crate::sim::control_plane::BROKER_SESSION_TIMEOUT_MS;
use crate::sim::prose::and_list;
use crate::sim::trace::{ElectionTrigger, LeaderElection, Standing};
use crate::sim::view::{BrokerStatus, ClusterView};
use crate::ui::narrate_ko::{ga, neun};

/// Why the partition has the leader it has.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LeaderWhy {
    /// No majority of controller voters is up, so nobody can elect one.
    NoActiveController,
    /// No replica in the ISR is alive, and unclean election is off (or no
    /// replica at all is alive): the partition is offline.
    Offline { isr: Vec<u32>, any_alive: bool },
    /// The leader is the preferred replica (first in assignment order),
    /// as it was when the topic was created.
    Preferred { leader: u32, replicas: Vec<u32> },
    /// The active controller's election for this leader epoch, as it traced
    /// it; `preferred_back` names the preferred replica when it could lead
    /// again now.
    Elected { election: LeaderElection, replicas: Vec<u32>, preferred_back: Option<u32> },
    /// The leader is alive and in the ISR, so the controller keeps it
    /// (the election itself is not known).
    Kept { leader: u32, leader_epoch: i32, preferred: u32 },
    /// The leader's process is down but the controller has not fenced it
    /// yet: the metadata still names it.
    DownNotYetFenced { leader: u32 },
}

/// Why one replica is, or is not, in the ISR.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplicaWhy {
    Leader { broker: u32 },
    /// A follower the leader saw caught up `ago_ms` ago.
    InIsr { broker: u32, ago_ms: u64 },
    Stopped { broker: u32 },
    Fenced { broker: u32 },
    /// Running, but not caught up with the leader for `behind_ms`.
    Lagging { broker: u32, behind_ms: u64, log_end_offset: i64 },
    /// Out of the ISR with nothing more known (no leader to ask).
    OutOfIsr { broker: u32 },
}

/// Everything the "Why?" panel says about one partition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartitionWhy {
    pub leader: LeaderWhy,
    pub replicas: Vec<ReplicaWhy>,
    /// The high watermark and the ISR members' log end offsets it is the
    /// smallest of (as the leader knows them).
    pub high_watermark: i64,
    pub isr_offsets: Vec<(u32, i64)>,
    /// The leader's min.insync.replicas (None with no leader).
    pub min_insync_replicas: Option<u32>,
    pub replica_lag_time_max_ms: u64,
}

fn status_of(view: &ClusterView, broker: u32) -> BrokerStatus {
    view.brokers.iter().find(|b| b.id == broker).map_or(BrokerStatus::Stopped, |b| b.status)
}

/// Kafka's controller elects only active brokers: unfenced and not in a
/// controlled shutdown (the simulation's controller uses the same rule).
fn can_lead(view: &ClusterView, broker: u32) -> bool {
    status_of(view, broker) == BrokerStatus::Running
}

/// Reads the reasons for one partition from the view, or None if there is
/// no such partition.
pub fn partition_why(view: &ClusterView, topic: &str, partition: u32) -> Option<PartitionWhy> {
    let p = view.partition(topic, partition)?;
    let preferred = *p.replicas.first()?;
    let no_controller = view.quorum.as_ref().is_some_and(|q| q.active.is_none());
    let leader = match p.leader {
        None if no_controller => LeaderWhy::NoActiveController,
        None => LeaderWhy::Offline { isr: p.isr.clone(), any_alive: p.replicas.iter().any(|r| can_lead(view, *r)) },
        Some(l) if status_of(view, l) == BrokerStatus::Stopped => LeaderWhy::DownNotYetFenced { leader: l },
        Some(l) => match &p.election {
            Some(e) => LeaderWhy::Elected {
                election: e.clone(),
                replicas: p.replicas.clone(),
                preferred_back: (l != preferred && p.isr.contains(&preferred) && can_lead(view, preferred)).then_some(preferred),
            },
            None if l == preferred => LeaderWhy::Preferred { leader: l, replicas: p.replicas.clone() },
            None => LeaderWhy::Kept { leader: l, leader_epoch: p.leader_epoch, preferred },
        },
    };
    // What the leader's replica knows of its followers.
    let leader_replica = p.leader.and_then(|l| view.replica(topic, partition, l));
    let replicas = p
        .replicas
        .iter()
        .map(|&b| {
            let follower = leader_replica.and_then(|r| r.followers.iter().find(|f| f.broker == b));
            if Some(b) == p.leader {
                return ReplicaWhy::Leader { broker: b };
            }
            match status_of(view, b) {
                BrokerStatus::Stopped if !p.isr.contains(&b) => return ReplicaWhy::Stopped { broker: b },
                BrokerStatus::Fenced if !p.isr.contains(&b) => return ReplicaWhy::Fenced { broker: b },
                _ => {}
            }
            match follower {
                Some(f) if p.isr.contains(&b) => {
                    ReplicaWhy::InIsr { broker: b, ago_ms: view.time_ms.saturating_sub(f.last_caught_up_time_ms) }
                }
                Some(f) => ReplicaWhy::Lagging {
                    broker: b,
                    behind_ms: view.time_ms.saturating_sub(f.last_caught_up_time_ms),
                    log_end_offset: f.log_end_offset,
                },
                None if p.isr.contains(&b) => ReplicaWhy::InIsr { broker: b, ago_ms: 0 },
                None => ReplicaWhy::OutOfIsr { broker: b },
            }
        })
        .collect();
    let isr_offsets = p.replica_offsets.iter().filter(|(b, _, _)| p.isr.contains(b)).map(|(b, leo, _)| (*b, *leo)).collect();
    Some(PartitionWhy {
        leader,
        replicas,
        high_watermark: p.high_watermark,
        isr_offsets,
        min_insync_replicas: leader_replica.map(|r| r.min_insync_replicas),
        replica_lag_time_max_ms: view.replica_lag_time_max_ms,
    })
}

/// What set an election off, as a clause: "its leader, broker 1, was
/// fenced". The narration and the "Why?" both say it.
pub(crate) fn trigger_clause(lang: Lang, e: &LeaderElection) -> String {

    match (lang, e.trigger, e.previous) {
        (Lang::En, ElectionTrigger::ReplicaReturned { broker }, _) => format!("the partition was offline until broker {broker} returned"),
        (Lang::Ko, ElectionTrigger::ReplicaReturned { broker }, _) => format!("오프라인이던 파티션에 {} 돌아와", ga(format!("브로커 {broker}"))),
        (Lang::En, _, None) => "the partition had no leader".into(),
        (Lang::Ko, _, None) => "파티션에 리더가 없어".into(),
        (Lang::En, t, Some(p)) => format!(
            "its leader, broker {p}, {}",
            match t {
                ElectionTrigger::LeaderFenced => "was fenced",
                ElectionTrigger::LeaderShuttingDown => "went into a controlled shutdown",
                _ => "restarted as a new process",
            }
        ),
        (Lang::Ko, t, Some(p)) => format!(
            "리더였던 {} {}",
            ga(format!("브로커 {p}")),
            match t {
                ElectionTrigger::LeaderFenced => "펜싱되어",
                ElectionTrigger::LeaderShuttingDown => "제어된 종료에 들어가",
                _ => "새 프로세스로 다시 시작해",
            }
        ),
    }
}

/// The replicas ahead of the leader that could not lead, other than the
/// old leader the trigger already names, as a sentence (with its leading
/// space), or nothing.
pub(crate) fn passed_over_sentence(lang: Lang, e: &LeaderElection) -> String {
    let others: Vec<String> = e
        .passed_over
        .iter()
        .filter(|(r, _)| Some(*r) != e.previous)
        .map(|(r, s)| match (lang, s) {
            (Lang::En, Standing::Fenced) => format!("broker {r} is fenced"),
            (Lang::En, Standing::ShuttingDown) => format!("broker {r} is in a controlled shutdown"),
            (Lang::En, Standing::OutOfIsr) => format!("broker {r} is out of the ISR"),
            (Lang::Ko, Standing::Fenced) => format!("브로커 {r}(펜싱됨)"),
            (Lang::Ko, Standing::ShuttingDown) => format!("브로커 {r}(제어된 종료 중)"),
            (Lang::Ko, Standing::OutOfIsr) => format!("브로커 {r}(ISR 밖)"),
        })
        .collect();
    match (lang, others.is_empty()) {
        (_, true) => String::new(),
        (Lang::En, false) => format!(" Ahead of it in assignment order, {}.", and_list(&others)),
        (Lang::Ko, false) => format!(" 할당 순서에서 앞선 복제본은 리더가 될 수 없었습니다: {}.", others.join(", ")),
    }
}

/// Brokers in order, as "(2, 0, 1)": the order is the point.
fn list(brokers: &[u32]) -> String {
    format!("({})", brokers.iter().map(u32::to_string).collect::<Vec<_>>().join(", "))
}

/// The leader's reason as one sentence.
pub fn leader_text(lang: Lang, why: &LeaderWhy) -> String {
    match (lang, why) {
        (Lang::En, LeaderWhy::NoActiveController) => {
            "No leader: there is no active controller (no majority of voters is up), so no one can elect one.".into()
        }
        (Lang::Ko, LeaderWhy::NoActiveController) => {
            "리더 없음: 활성 컨트롤러가 없어(과반의 보터가 살아 있지 않음) 리더를 선출할 수 없습니다.".into()
        }
        (Lang::En, LeaderWhy::Offline { isr, any_alive: true }) => format!(
            "No leader: no replica in the ISR {} is alive, and with unclean.leader.election.enable off the controller will not pick a replica outside it, which could lack acknowledged records. The partition stays offline until an ISR member returns.",
            list(isr)
        ),
        (Lang::Ko, LeaderWhy::Offline { isr, any_alive: true }) => format!(
            "리더 없음: ISR {}의 복제본이 하나도 살아 있지 않고, unclean.leader.election.enable이 꺼져 있어 확인 응답된 레코드가 없을 수 있는 ISR 밖 복제본은 고르지 않습니다. ISR 멤버가 돌아올 때까지 파티션은 오프라인입니다.",
            list(isr)
        ),
        (Lang::En, LeaderWhy::Offline { any_alive: false, .. }) => {
            "No leader: none of its replicas is alive. The partition stays offline until one returns.".into()
        }
        (Lang::Ko, LeaderWhy::Offline { any_alive: false, .. }) => {
            "리더 없음: 살아 있는 복제본이 없습니다. 하나가 돌아올 때까지 파티션은 오프라인입니다.".into()
        }
        (Lang::En, LeaderWhy::Preferred { leader, replicas }) => format!(
            "Broker {leader} leads: it is the preferred leader, the first replica in assignment order {}, and has led since the topic was created.",
            list(replicas)
        ),
        (Lang::Ko, LeaderWhy::Preferred { leader, replicas }) => format!(
            "{subject} 리더입니다: 할당 순서 {}의 첫 복제본(선호 리더)이고, 토픽이 만들어진 뒤로 계속 리더입니다.",
            list(replicas),
            subject = ga(format!("브로커 {leader}"))
        ),
        (lang, LeaderWhy::Elected { election, replicas, preferred_back }) => elected_text(lang, election, replicas, *preferred_back),
        (Lang::En, LeaderWhy::Kept { leader, leader_epoch, preferred }) => format!(
            "Broker {leader} has led since leader epoch {leader_epoch}: the controller keeps a leader that is alive and in the ISR.{}",
            preferred_back(Lang::En, *preferred)
        ),
        (Lang::Ko, LeaderWhy::Kept { leader, leader_epoch, preferred }) => format!(
            "{subject} 리더 에포크 {leader_epoch}부터 리더입니다: 컨트롤러는 살아 있고 ISR에 있는 리더를 바꾸지 않습니다.{}",
            preferred_back(Lang::Ko, *preferred),
            subject = ga(format!("브로커 {leader}"))
        ),
        (Lang::En, LeaderWhy::DownNotYetFenced { leader }) => format!(
            "Broker {leader} is down, but the metadata still names it leader: the active controller fences a broker only after broker.session.timeout.ms ({} s) without a heartbeat, and elects a new leader then.",
            BROKER_SESSION_TIMEOUT_MS / 1000
        ),
        (Lang::Ko, LeaderWhy::DownNotYetFenced { leader }) => format!(
            "{subject} 멈췄지만 메타데이터에는 아직 리더로 남아 있습니다: 활성 컨트롤러는 broker.session.timeout.ms({}초) 동안 하트비트가 없어야 브로커를 펜싱하고, 그때 새 리더를 뽑습니다.",
            BROKER_SESSION_TIMEOUT_MS / 1000,
            subject = neun(format!("브로커 {leader}"))
        ),
    }
}

/// Why the preferred leader, who could lead again, does not (with its
/// leading space).
fn preferred_back(lang: Lang, preferred: u32) -> String {
    match lang {
        Lang::En => format!(" Broker {preferred}, the preferred leader, could lead again; Kafka moves leadership back only by a preferred leader election (auto.leader.rebalance.enable checks every 300 s, which this simulation does not run)."),
        Lang::Ko => format!(" 선호 리더인 {subject} 다시 리더가 될 수 있지만, Kafka는 선호 리더 선출로만 리더십을 되돌립니다(auto.leader.rebalance.enable이 300초마다 확인하며, 이 시뮬레이션은 그것을 실행하지 않습니다).", subject = ga(format!("브로커 {preferred}"))),
    }
}

/// The election behind the leader, as the "Why?" tells it.
fn elected_text(lang: Lang, e: &LeaderElection, replicas: &[u32], back: Option<u32>) -> String {

    let (epoch, why, passed) = (e.leader_epoch, trigger_clause(lang, e), passed_over_sentence(lang, e));
    let leader = e.leader.unwrap_or_default();
    let back = back.map(|p| preferred_back(lang, p)).unwrap_or_default();
    match (lang, e.unclean) {
        (Lang::En, false) => format!(
            "Broker {leader} has led since leader epoch {epoch}: {why}, so the active controller chose the first replica in assignment order {} that was alive and in the ISR.{passed}{back}",
            list(replicas)
        ),
        (Lang::Ko, false) => format!(
            "{} 리더 에포크 {epoch}부터 리더입니다: {why}, 활성 컨트롤러가 할당 순서 {}에서 살아 있고 ISR에 있는 첫 복제본을 골랐습니다.{passed}{back}",
            ga(format!("브로커 {leader}")),
            list(replicas)
        ),
        (Lang::En, true) => format!(
            "Broker {leader} has led since leader epoch {epoch} by an unclean election: {why}, no replica of the ISR {} was alive, and with unclean.leader.election.enable on the active controller chose the first live replica in assignment order {}. Acknowledged records it lacked are lost.{back}",
            list(&e.previous_isr),
            list(replicas)
        ),
        (Lang::Ko, true) => format!(
            "{} 리더 에포크 {epoch}부터 언클린 선출로 리더입니다: {why}, ISR {}의 복제본이 하나도 살아 있지 않았고, unclean.leader.election.enable이 켜져 있어 활성 컨트롤러가 할당 순서 {}에서 살아 있는 첫 복제본을 골랐습니다. 이 브로커에 없던 확인 응답된 레코드는 사라졌습니다.{back}",
            ga(format!("브로커 {leader}")),
            list(&e.previous_isr),
            list(replicas)
        ),
    }
}

/// One replica's ISR standing as one sentence.
pub fn replica_text(lang: Lang, why: &ReplicaWhy, lag_max_ms: u64) -> String {
    match (lang, why) {
        (Lang::En, ReplicaWhy::Leader { broker }) => format!("Broker {broker} is the leader: it is always in the ISR."),
        (Lang::Ko, ReplicaWhy::Leader { broker }) => format!("{subject} 리더이므로 항상 ISR에 있습니다.", subject = neun(format!("브로커 {broker}"))),
        (Lang::En, ReplicaWhy::InIsr { broker, ago_ms }) => format!(
            "Broker {broker} is in the ISR: its last fetch that reached the leader's log end offset was {ago_ms} ms ago, within replica.lag.time.max.ms ({lag_max_ms} ms)."
        ),
        (Lang::Ko, ReplicaWhy::InIsr { broker, ago_ms }) => format!(
            "{subject} ISR에 있습니다: 리더의 로그 끝 오프셋까지 따라잡은 마지막 페치가 {ago_ms} ms 전으로, replica.lag.time.max.ms({lag_max_ms} ms) 이내입니다.", subject = neun(format!("브로커 {broker}"))
        ),
        (Lang::En, ReplicaWhy::Stopped { broker }) => {
            format!("Broker {broker} is out of the ISR: it is down, and the active controller removed it when it fenced the broker.")
        }
        (Lang::Ko, ReplicaWhy::Stopped { broker }) => {
            format!("{subject} ISR 밖입니다: 멈춰 있고, 활성 컨트롤러가 브로커를 펜싱하면서 ISR에서 뺐습니다.", subject = neun(format!("브로커 {broker}")))
        }
        (Lang::En, ReplicaWhy::Fenced { broker }) => format!(
            "Broker {broker} is out of the ISR: it is fenced (no heartbeat within broker.session.timeout.ms, or not yet caught up with the metadata log), and a fenced broker is removed from every ISR."
        ),
        (Lang::Ko, ReplicaWhy::Fenced { broker }) => format!(
            "{subject} ISR 밖입니다: 펜싱되었고(broker.session.timeout.ms 안에 하트비트가 없거나 메타데이터 로그를 아직 따라잡지 못함), 펜싱된 브로커는 모든 ISR에서 빠집니다.", subject = neun(format!("브로커 {broker}"))
        ),
        (Lang::En, ReplicaWhy::Lagging { broker, behind_ms, log_end_offset }) => format!(
            "Broker {broker} is out of the ISR: none of its fetches has reached the leader's log end offset for {behind_ms} ms (it is at offset {log_end_offset}); the leader drops a follower after replica.lag.time.max.ms ({lag_max_ms} ms), and takes it back once it catches up to the high watermark."
        ),
        (Lang::Ko, ReplicaWhy::Lagging { broker, behind_ms, log_end_offset }) => format!(
            "{subject} ISR 밖입니다: {behind_ms} ms 동안 어떤 페치도 리더의 로그 끝 오프셋에 닿지 못했습니다(오프셋 {log_end_offset}에 있음). 리더는 replica.lag.time.max.ms({lag_max_ms} ms)가 지나면 팔로워를 빼고, 하이 워터마크까지 따라잡으면 다시 넣습니다.", subject = neun(format!("브로커 {broker}"))
        ),
        (Lang::En, ReplicaWhy::OutOfIsr { broker }) => {
            format!("Broker {broker} is out of the ISR; with no leader there is no follower state to say more.")
        }
        (Lang::Ko, ReplicaWhy::OutOfIsr { broker }) => {
            format!("{subject} ISR 밖입니다. 리더가 없어 팔로워 상태를 더 알 수 없습니다.", subject = neun(format!("브로커 {broker}")))
        }
    }
}

/// Where the high watermark comes from, as one sentence.
pub fn high_watermark_text(lang: Lang, why: &PartitionWhy) -> String {
    let offsets = |word: &str, at: &str| -> String {
        why.isr_offsets.iter().map(|(b, leo)| format!("{word} {b}{at}{leo}")).collect::<Vec<_>>().join(", ")
    };
    // Since Kafka 3.7 the HW does not move while the ISR is below
    // min.insync.replicas.
    let frozen = why.min_insync_replicas.filter(|m| (why.isr_offsets.len() as u32) < *m);
    let text = match lang {
        Lang::En => format!(
            "HW {}: the leader moves it to the smallest log end offset in the ISR as it learns them from the followers' fetches ({}). Consumers read only below it.",
            why.high_watermark,
            offsets("broker", " at ")
        ),
        Lang::Ko => format!(
            "HW {}: 리더는 팔로워의 페치로 알게 된 ISR의 로그 끝 오프셋 중 가장 작은 값으로 HW를 옮깁니다(ISR 로그 끝 오프셋: {}). 컨슈머는 그 아래만 읽습니다.",
            why.high_watermark,
            offsets("브로커", ": ")
        ),
    };
    match (lang, frozen) {
        (_, None) => text,
        (Lang::En, Some(m)) => format!(
            "{text} Now the ISR has fewer than min.insync.replicas ({m}) members, so the HW stays where it is and acks=all produces are refused with NOT_ENOUGH_REPLICAS."
        ),
        (Lang::Ko, Some(m)) => format!(
            "{text} 지금은 ISR 멤버가 min.insync.replicas({m})보다 적어 HW가 그대로 머물고, acks=all 프로듀스는 NOT_ENOUGH_REPLICAS로 거부됩니다."
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::simulation::Command;
    use crate::ui::session::Session;

    fn why(s: &Session, partition: u32) -> PartitionWhy {
        partition_why(&s.view(), "orders", partition).expect("orders has this partition")
    }

    #[test]
    fn a_healthy_cluster_has_preferred_leaders_and_a_full_isr() {
        let s = Session::default();
        let w = why(&s, 0);
        assert!(matches!(w.leader, LeaderWhy::Preferred { .. }), "{w:?}");
        assert_eq!(w.replicas.iter().filter(|r| matches!(r, ReplicaWhy::Leader { .. })).count(), 1);
        assert_eq!(w.replicas.iter().filter(|r| matches!(r, ReplicaWhy::InIsr { .. })).count(), 2, "{w:?}");
        assert_eq!(w.replica_lag_time_max_ms, 30_000);
        assert!(leader_text(Lang::En, &w.leader).contains("preferred leader"));
    }

    /// The traced election behind the leader, or a panic naming what the
    /// "Why?" said instead.
    fn elected(w: &PartitionWhy) -> (&LeaderElection, Option<u32>) {
        match &w.leader {
            LeaderWhy::Elected { election, preferred_back, .. } => (election, *preferred_back),
            other => panic!("expected the controller's election, got {other:?}"),
        }
    }

    #[test]
    fn a_killed_leader_is_named_until_fenced_then_the_first_live_isr_replica_leads() {
        let mut s = Session::default();
        let replicas = s.view().partition("orders", 0).unwrap().replicas.clone();
        let preferred = replicas[0];
        s.command_now(Command::KillBroker { broker: preferred }).unwrap();
        assert_eq!(why(&s, 0).leader, LeaderWhy::DownNotYetFenced { leader: preferred });
        // Step until the controller fences the broker and elects anew.
        let (_, moved) = s.step_until(50_000, |_| false);
        assert!(!moved);
        let w = why(&s, 0);
        let (e, back) = elected(&w);
        assert_eq!(e.leader, Some(replicas[1]), "the first live ISR replica in assignment order");
        assert_eq!((e.previous, e.trigger, back), (Some(preferred), ElectionTrigger::LeaderFenced, None));
        assert_eq!(e.passed_over, vec![(preferred, Standing::Fenced)]);
        let text = leader_text(Lang::En, &w.leader);
        assert!(text.contains(&format!("its leader, broker {preferred}, was fenced")), "{text}");
        assert!(w.replicas.contains(&ReplicaWhy::Stopped { broker: preferred }), "{w:?}");
        assert!(replica_text(Lang::Ko, &ReplicaWhy::Stopped { broker: preferred }, 30_000).contains("ISR 밖"));

        // Back again: the moment it runs but has not rejoined the ISR, the
        // reason is still the fencing that moved the leadership, not what
        // the broker is now (the old derivation said "out of the ISR").
        s.command_now(Command::RestartBroker { broker: preferred }).unwrap();
        let running = |s: &Session| s.view().brokers.iter().any(|b| b.id == preferred && b.status == BrokerStatus::Running);
        while !running(&s) {
            assert!(s.step(), "the restarted broker is unfenced");
        }
        let w = why(&s, 0);
        assert!(!w.isr_offsets.iter().any(|(b, _)| *b == preferred), "not yet back in the ISR: {w:?}");
        let text = leader_text(Lang::En, &w.leader);
        assert!(text.contains("was fenced") && !text.contains("out of the ISR"), "{text}");
        // In the ISR again, it does not take leadership back.
        s.step_until(50_000, |_| false);
        let w = why(&s, 0);
        assert_eq!(elected(&w).1, Some(preferred), "{w:?}");
        assert!(leader_text(Lang::En, &w.leader).contains("preferred leader election"));
        assert!(leader_text(Lang::Ko, &w.leader).contains("선호 리더 선출"));
    }

    #[test]
    fn an_unclean_leader_says_it_was_elected_from_outside_the_isr() {
        let setup = crate::ui::setup::Setup { unclean_leader_election_enable: true, ..Default::default() };
        let mut s = setup.start().unwrap();
        let p = s.view().partition("orders", 0).unwrap().clone();
        let (leader, follower) = (p.leader.unwrap(), p.replicas.iter().copied().find(|r| Some(*r) != p.leader).unwrap());
        for b in p.replicas.iter().filter(|b| Some(**b) != p.leader) {
            s.command_now(Command::KillBroker { broker: *b }).unwrap();
        }
        s.step_until(50_000, |_| false);
        assert_eq!(s.view().partition("orders", 0).unwrap().isr, vec![leader], "the followers left the ISR");
        s.command_now(Command::KillBroker { broker: leader }).unwrap();
        s.step_until(50_000, |_| false);
        s.command_now(Command::RestartBroker { broker: follower }).unwrap();
        s.step_until(50_000, |_| false);
        let w = why(&s, 0);
        let (e, _) = elected(&w);
        assert_eq!((e.leader, e.unclean, e.previous_isr.clone()), (Some(follower), true, vec![leader]), "{e:?}");
        assert_eq!(e.trigger, ElectionTrigger::ReplicaReturned { broker: follower });
        let text = leader_text(Lang::En, &w.leader);
        assert!(text.contains("by an unclean election") && text.contains(&format!("until broker {follower} returned")), "{text}");
        assert!(leader_text(Lang::Ko, &w.leader).contains("언클린 선출"));
    }

    #[test]
    fn korean_particles_follow_how_the_broker_number_is_read() {
        // 1 is read 일 (a final consonant: 이, 은), 2 is read 이 (none: 가, 는).
        let preferred = |leader| leader_text(Lang::Ko, &LeaderWhy::Preferred { leader, replicas: vec![leader] });
        assert!(preferred(1).starts_with("브로커 1이 리더입니다"), "{}", preferred(1));
        assert!(preferred(2).starts_with("브로커 2가 리더입니다"), "{}", preferred(2));
        let down = leader_text(Lang::Ko, &LeaderWhy::DownNotYetFenced { leader: 3 });
        assert!(down.starts_with("브로커 3은 멈췄지만"), "{down}");
        for (broker, subject) in [(0, "브로커 0은"), (2, "브로커 2는")] {
            for why in [
                ReplicaWhy::Leader { broker },
                ReplicaWhy::InIsr { broker, ago_ms: 5 },
                ReplicaWhy::Stopped { broker },
                ReplicaWhy::Fenced { broker },
                ReplicaWhy::Lagging { broker, behind_ms: 5, log_end_offset: 7 },
                ReplicaWhy::OutOfIsr { broker },
            ] {
                let text = replica_text(Lang::Ko, &why, 30_000);
                assert!(text.starts_with(subject), "{text}");
            }
        }
    }

    #[test]
    fn with_every_replica_down_the_partition_is_offline_and_says_why() {
        let mut s = Session::default();
        for broker in 0..3 {
            s.command_now(Command::KillBroker { broker }).unwrap();
        }
        s.step_until(50_000, |_| false);
        let w = why(&s, 2);
        assert!(matches!(w.leader, LeaderWhy::Offline { any_alive: false, .. }), "{w:?}");
        assert!(leader_text(Lang::En, &w.leader).contains("none of its replicas is alive"));
        assert!(leader_text(Lang::Ko, &w.leader).contains("오프라인"));
    }

    #[test]
    fn a_preferred_leader_in_controlled_shutdown_hands_its_leadership_on() {
        let mut s = Session::default();
        let p = s.view().partition("orders", 0).unwrap().clone();
        let (preferred, next) = (p.replicas[0], p.replicas[1]);
        s.command_now(Command::ShutdownBroker { broker: preferred }).unwrap();
        let moved = |s: &Session| s.view().partition("orders", 0).unwrap().leader == Some(next);
        while !moved(&s) {
            assert!(s.step(), "the controller moves the leadership");
        }
        let w = why(&s, 0);
        let (e, _) = elected(&w);
        assert_eq!((e.trigger, e.previous, e.passed_over.clone()), (ElectionTrigger::LeaderShuttingDown, Some(preferred), vec![(preferred, Standing::ShuttingDown)]));
        assert!(leader_text(Lang::En, &w.leader).contains("went into a controlled shutdown"));
        assert!(leader_text(Lang::Ko, &w.leader).contains("제어된 종료"));
    }

    #[test]
    fn an_isr_below_min_insync_replicas_freezes_the_high_watermark_and_says_so() {
        let setup = crate::ui::setup::Setup { min_insync_replicas: 3, ..Default::default() };
        let mut s = setup.start().unwrap();
        assert!(!high_watermark_text(Lang::En, &why(&s, 0)).contains("min.insync.replicas"), "a full ISR is not frozen");
        let follower = s.view().partition("orders", 0).unwrap().replicas[2];
        s.command_now(Command::KillBroker { broker: follower }).unwrap();
        s.step_until(50_000, |_| false);
        let w = why(&s, 0);
        assert_eq!((w.isr_offsets.len(), w.min_insync_replicas), (2, Some(3)), "{w:?}");
        assert!(high_watermark_text(Lang::En, &w).contains("fewer than min.insync.replicas (3)"));
        assert!(high_watermark_text(Lang::Ko, &w).contains("NOT_ENOUGH_REPLICAS"));
    }

    #[test]
    fn the_high_watermark_is_explained_by_the_isr_offsets() {
        let mut s = Session::default();
        let produce = |s: &mut Session, client: u32| {
            s.command_now(Command::Produce {
                client,
                topic: "orders".into(),
                key: None,
                value: Some("v".into()),
                headers: vec![],
                partition: Some(1),
                timestamp_ms: None,
            })
            .unwrap();
        };
        // Three acks=all records (client 0), settled: every ISR replica holds
        // them, and the HW is their common log end offset.
        for _ in 0..3 {
            produce(&mut s, 0);
        }
        s.step_until(3_000, |_| false);
        let w = why(&s, 1);
        assert_eq!(w.high_watermark, 3, "{w:?}");
        assert_eq!(w.isr_offsets.iter().map(|(_, leo)| *leo).collect::<Vec<_>>(), vec![3, 3, 3], "{w:?}");
        let text = high_watermark_text(Lang::En, &w);
        assert!(text.starts_with("HW 3:"), "{text}");
        for (b, _) in &w.isr_offsets {
            assert!(text.contains(&format!("broker {b} at 3")), "{text}");
        }
        // An acks=1 record (client 1): the moment the leader has it and a
        // follower does not, the HW is the smallest log end offset in the
        // ISR, and the text names both.
        produce(&mut s, 1);
        let leader = s.view().partition("orders", 1).unwrap().leader.unwrap();
        let mut seen = None;
        for _ in 0..3_000 {
            s.step();
            let w = why(&s, 1);
            let leader_leo = w.isr_offsets.iter().find(|(b, _)| *b == leader).map(|(_, leo)| *leo);
            if leader_leo == Some(4) && w.isr_offsets.iter().any(|(_, leo)| *leo == 3) {
                seen = Some(w);
                break;
            }
        }
        let w = seen.expect("a moment with the leader at 4 and a follower at 3");
        let smallest = w.isr_offsets.iter().map(|(_, leo)| *leo).min().unwrap();
        assert_eq!((w.high_watermark, smallest), (3, 3), "{w:?}");
        let text = high_watermark_text(Lang::En, &w);
        assert!(text.starts_with("HW 3:") && text.contains(&format!("broker {leader} at 4")) && text.contains(" at 3"), "{text}");
        assert!(high_watermark_text(Lang::Ko, &w).contains(&format!("브로커 {leader}: 4")));
    }
}
