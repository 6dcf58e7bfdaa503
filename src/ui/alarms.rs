//! Alarms: the invariants the checker found broken on this timeline, each
//! with a button that jumps to the step that broke it.

use super::i18n::Lang;
use crate::sim::invariants::{Guarantee, Invariant, NoGuarantee};

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

