use crate::sim::log::log::SegmentView;
use crate::ui::i18n::Lang;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SegmentsProps {
    pub segments: Vec<SegmentView>,
    /// The base offset of the segment shown.
    pub chosen: Option<i64>,
    pub on_choose: Callback<i64>,
}

/// The replica's segment files, one button each.
#[function_component(Segments)]
pub fn segments(props: &SegmentsProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    html! {
        <div class="segments" role="list" aria-label="Segments">
            { for props.segments.iter().map(|s| {
                let chosen = props.chosen == Some(s.base_offset);
                let onclick = props.on_choose.reform({
                    let base = s.base_offset;
                    move |_: MouseEvent| base
                });
                html! {
                    <button role="listitem" class={classes!("segment", chosen.then_some("chosen"))} {onclick}
                        aria-label={format!("Segment {}", s.name)} aria-pressed={chosen.to_string()}>
                        <span class="file">{ s.name.clone() }</span>
                        <span class="facts">{ format!("{} · {} {} · {} {}{}",
                            if s.next_offset > s.base_offset { format!("{}–{}", s.base_offset, s.next_offset - 1) } else { format!("{}–", s.base_offset) },
                            s.batch_count, t.batches_word, s.size_bytes, t.bytes_word,
                            if s.is_active { format!(" · {}", t.active_segment) } else { String::new() }) }</span>
                    </button>
                }
            }) }
        </div>
    }
}

