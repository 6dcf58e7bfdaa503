use super::app::Clock;
use crate::ui::i18n::{self, Lang};
use crate::ui::layout::Rect;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PurgatoryClockProps {
    /// The purgatory's place in the picture.
    pub area: Rect,
    /// When each delayed operation in it expires, soonest first.
    pub deadlines: Vec<i64>,
}

/// The purgatory's soonest deadline, counting down in its title line. It
/// reads the clock from a context, so only it is drawn again as time runs,
/// not the whole pipeline.
#[function_component(PurgatoryClock)]
pub fn purgatory_clock(props: &PurgatoryClockProps) -> Html {
    let lang = use_context::<Lang>().unwrap_or_default();
    let Clock(now) = use_context::<Clock>().unwrap_or(Clock(0.0));
    let Some(first) = props.deadlines.first() else {
        return html! {};
    };
    let left = (*first as f64 - now).max(0.0) as u64;
    let a = &props.area;
    html! {
        <text class="purgatory-clock" x={format!("{:.1}", a.x + a.w - 6.0)} y={format!("{:.1}", a.y + 12.5)} text-anchor="end">
            <title>{ lang.texts().purgatory_clock_hint }</title>
            { format!("⏱ {}", i18n::duration(lang, left)) }
        </text>
    }
}
