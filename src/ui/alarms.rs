//! Alarms: the invariants the checker found broken on this timeline, each
//! with a button that jumps to the step that broke it.

use super::i18n::Lang;
use super::narrate_ko::{ga, neun, reul, wa};
use crate::sim::ids::TopicPartition;
use crate::sim::invariants::{Breach, FoundInstead, Guarantee, Invariant, NoGuarantee};

/// An invariant's name in the page's language.
pub fn invariant_name(lang: Lang, i: Invariant) -> &'static str {
    match lang {
        Lang::En => i.name(),
        Lang::Ko => match i {
            Invariant::ElectionSafety => "선거 안전성(Election Safety)",
            Invariant::OneLeaderPerLeaderEpoch => "리더 에포크마다 리더는 하나",
            Invariant::HighWatermarkMonotonic => "하이 워터마크는 뒤로 가지 않음",
            Invariant::AcknowledgedWriteKept => "확인 응답한 쓰기는 잃지 않음",
            Invariant::ConsumerReadsCommitted => "컨슈머는 커밋된 레코드만 읽음",
            Invariant::OffsetsContiguous => "오프셋은 유일하고 연속적",
            Invariant::IdempotentBatchOnce => "멱등 프로듀서의 배치는 한 번만 기록됨",
        },
    }
}

/// What a lost write teaches: whether Kafka promised to keep it.
pub fn guarantee_note(lang: Lang, g: Guarantee) -> &'static str {
    match (lang, g) {
        (Lang::En, Guarantee::Guaranteed) => {
            "Kafka guarantees this write (acks=all with min.insync.replicas met, clean elections only): losing it is a bug."
        }
        (Lang::En, Guarantee::NotGuaranteed(NoGuarantee::AcksOne)) => {
            "Kafka does not promise to keep it: with acks=1 only the leader had the record when it answered."
        }
        (Lang::En, Guarantee::NotGuaranteed(NoGuarantee::UncleanElection)) => {
            "Kafka does not promise to keep it: an unclean leader election chose a replica from outside the ISR that never had it."
        }
        (Lang::Ko, Guarantee::Guaranteed) => {
            "Kafka가 보장하는 쓰기입니다(acks=all, min.insync.replicas 충족, 클린 선출만): 잃었다면 버그입니다."
        }
        (Lang::Ko, Guarantee::NotGuaranteed(NoGuarantee::AcksOne)) => {
            "Kafka가 보장하지 않습니다: acks=1이면 응답할 때 리더만 레코드를 갖고 있었습니다."
        }
        (Lang::Ko, Guarantee::NotGuaranteed(NoGuarantee::UncleanElection)) => {
            "Kafka가 보장하지 않습니다: 언클린 리더 선출이 이 레코드를 가진 적 없는 ISR 밖의 복제본을 골랐습니다."
        }
    }
}

/// "offset 4" or "offsets 4 to 6", in the page's language.
fn offsets(lang: Lang, first: i64, last: i64) -> String {
    match (lang, first == last) {
        (Lang::En, true) => format!("offset {first}"),
        (Lang::En, false) => format!("offsets {first} to {last}"),
        (Lang::Ko, true) => format!("오프셋 {first}"),
        (Lang::Ko, false) => format!("오프셋 {first}~{last}"),
    }
}

/// What a violation found, as one sentence in the page's language.
/// `partition` is the violation's partition (none for the quorum).
pub fn breach_text(lang: Lang, partition: Option<&TopicPartition>, breach: &Breach) -> String {
    let tp = partition.map(ToString::to_string).unwrap_or_default();
    match (lang, breach) {
        (Lang::En, Breach::TwoQuorumLeaders { first, second, epoch }) => {
            format!("Controllers {first} and {second} both lead the metadata quorum in epoch {epoch}.")
        }
        (Lang::Ko, Breach::TwoQuorumLeaders { first, second, epoch }) => {
            format!("컨트롤러 {} {} 에포크 {epoch}에서 함께 메타데이터 쿼럼을 이끕니다.", wa(first), ga(second))
        }
        (Lang::En, Breach::TwoPartitionLeaders { first, second, leader_epoch }) => {
            format!("Brokers {first} and {second} both lead {tp} in leader epoch {leader_epoch}.")
        }
        (Lang::Ko, Breach::TwoPartitionLeaders { first, second, leader_epoch }) => {
            format!("브로커 {} {} 리더 에포크 {leader_epoch}에서 함께 {tp}의 리더입니다.", wa(first), ga(second))
        }
        (Lang::En, Breach::HighWatermarkBack { leader, from, to, leader_epoch }) => format!(
            "The high watermark of {tp} on its leader, broker {leader}, went back from {from} to {to} in leader epoch {leader_epoch}."
        ),
        (Lang::Ko, Breach::HighWatermarkBack { leader, from, to, leader_epoch }) => format!(
            "{tp}의 리더인 브로커 {leader}에서 하이 워터마크가 리더 에포크 {leader_epoch} 안에 {from}에서 {to}로 뒤로 갔습니다."
        ),
        (lang, Breach::WriteLost { client, acked_step, base_offset, last_offset, leader, leader_epoch, found, high_watermark, .. }) => {
            let at = offsets(lang, *base_offset, *last_offset);
            match lang {
                Lang::En => {
                    let found = match found {
                        FoundInstead::AnotherBatch => "another batch",
                        FoundInstead::AnotherBatchAcross => "another batch across it",
                        FoundInstead::Nothing => "nothing",
                    };
                    format!(
                        "The write that {client} had acknowledged at step {acked_step}, at {at} of {tp}, is gone: its leader, broker {leader} (leader epoch {leader_epoch}), has {found} there, below its high watermark {high_watermark}."
                    )
                }
                Lang::Ko => {
                    let found = match found {
                        FoundInstead::AnotherBatch => "다른 배치가",
                        FoundInstead::AnotherBatchAcross => "그 자리에 걸친 다른 배치가",
                        FoundInstead::Nothing => "아무것도 없이 비어",
                    };
                    format!(
                        "{} {acked_step}단계에서 확인 응답받은 쓰기({tp}의 {at})가 사라졌습니다: 리더 브로커 {leader}(리더 에포크 {leader_epoch})의 하이 워터마크 {high_watermark} 아래, 그 자리에 {found} 있습니다.",
                        ga(client)
                    )
                }
            }
        }
        (Lang::En, Breach::ReadAboveCommitted { consumer, last_offset, bound }) => format!(
            "{consumer} read {tp} up to offset {last_offset}, but no leader's high watermark was ever above {bound}."
        ),
        (Lang::Ko, Breach::ReadAboveCommitted { consumer, last_offset, bound }) => format!(
            "{} {} 오프셋 {last_offset}까지 읽었지만, 어느 리더의 하이 워터마크도 {} 넘은 적이 없습니다.",
            neun(consumer),
            reul(tp),
            reul(bound)
        ),
        (Lang::En, Breach::OffsetGap { replica, base, last, expected, leo }) => format!(
            "Broker {replica} appended {} to {tp}, whose log ended at {expected}; its log end offset is now {leo}.",
            offsets(lang, *base, *last)
        ),
        (Lang::Ko, Breach::OffsetGap { replica, base, last, expected, leo }) => format!(
            "{} 로그가 {expected}에서 끝나던 {tp}에 {} 추가했습니다. 이제 로그 끝 오프셋은 {leo}입니다.",
            ga(format!("브로커 {replica}")),
            reul(offsets(lang, *base, *last))
        ),
        (Lang::En, Breach::BatchTwice { replica, producer_id, producer_epoch, base_sequence, first, again }) => format!(
            "Producer id {producer_id} (epoch {producer_epoch}) has its batch with base sequence {base_sequence} in {tp} on broker {replica} twice: at offset {first} and again at offset {again}."
        ),
        (Lang::Ko, Breach::BatchTwice { replica, producer_id, producer_epoch, base_sequence, first, again }) => format!(
            "프로듀서 ID {producer_id}(에포크 {producer_epoch})의 기준 시퀀스 {base_sequence} 배치가 브로커 {replica}의 {tp}에 두 번 있습니다: 오프셋 {} 오프셋 {again}.", wa(first)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::ids::NodeId;

    fn every_breach() -> Vec<Breach> {
        vec![
            Breach::TwoQuorumLeaders { first: 1, second: 2, epoch: 3 },
            Breach::TwoPartitionLeaders { first: 4, second: 5, leader_epoch: 6 },
            Breach::HighWatermarkBack { leader: 7, from: 8, to: 9, leader_epoch: 10 },
            Breach::WriteLost {
                client: NodeId::Client(11),
                acked_step: 12,
                base_offset: 13,
                last_offset: 14,
                leader: 15,
                leader_epoch: 16,
                found: FoundInstead::AnotherBatch,
                high_watermark: 17,
                min_insync_replicas: 2,
            },
            Breach::ReadAboveCommitted { consumer: NodeId::Client(18), last_offset: 19, bound: 20 },
            Breach::OffsetGap { replica: 21, base: 22, last: 23, expected: 24, leo: 25 },
            Breach::BatchTwice { replica: 26, producer_id: 27, producer_epoch: 28, base_sequence: 29, first: 30, again: 31 },
        ]
    }

    /// The numbers a sentence names, in order of first appearance.
    fn numbers(text: &str) -> Vec<i64> {
        let mut out: Vec<i64> = Vec::new();
        for word in text.split(|c: char| !c.is_ascii_digit()).filter(|w| !w.is_empty()) {
            let n: i64 = word.parse().expect("digits");
            if !out.contains(&n) {
                out.push(n);
            }
        }
        out.sort_unstable();
        out
    }

    #[test]
    fn every_breach_is_told_in_both_languages_with_all_its_numbers_and_no_rust_syntax() {
        let tp = TopicPartition::new("orders", 0);
        for b in every_breach() {
            let en = breach_text(Lang::En, Some(&tp), &b);
            let ko = breach_text(Lang::Ko, Some(&tp), &b);
            // Each sample numbers its fields apart (min.insync.replicas is
            // the guarantee note's, not the sentence's), so a field left out
            // of either language shows here.
            let mut want = numbers(&format!("{b:?}"));
            want.retain(|n| *n != 2 || !matches!(b, Breach::WriteLost { .. }));
            for text in [&en, &ko] {
                let mut got = numbers(text);
                got.retain(|n| *n != 0 || !text.contains("orders-0"));
                assert_eq!(got, want, "{text}");
                for rust in ["..=", "Some(", "{", "::"] {
                    assert!(!text.contains(rust), "{text}");
                }
            }
            assert!(ko.chars().any(|c| ('\u{AC00}'..='\u{D7A3}').contains(&c)), "{ko}");
        }
    }
}
